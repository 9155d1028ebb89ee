// A batch's witnesses read on threads of their own and handed out as each read ends
// (batch_witnesses.hpp), so that the backend proves the first partitions while the last are read.
// At 2^25 a PoRep job's ten witness files are 1 GiB each and took 1.8 s to read, four at a time,
// before its batch could start (docs/gpu/msm.md, 'The daemon's batches at scale').
//
// Reads run `at_once` at a time on threads the stream starts (a read is a GiB of copying and
// checking: the global pool would hold a proof's loops behind it), in partition order, each
// published when it ends; a partition `on_driver` names (input JSON: the circuit's generator runs
// one calculation at a time) is read in its turn on the stream's own thread. After a failed read,
// later partitions are not read; wait() on them says so. The destructor stops reads not started
// and waits for those running, so the read function's captures must outlive the stream only until
// then.
//
// Thread safety: wait(), ready() and first_failure() from any thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "engine/jobs/batch_witnesses.hpp"

namespace cuzk::engine {

class witness_stream final : public batch_witnesses {
 public:
  using read_fn = std::function<result<any_witness>(std::size_t)>;
  using on_driver_fn = std::function<bool(std::size_t)>;

  // Starts reading partitions 0 .. count - 1 with read(p).
  witness_stream(std::size_t count, std::size_t at_once, read_fn read, on_driver_fn on_driver = nullptr);
  ~witness_stream() override;
  witness_stream(const witness_stream&) = delete;
  witness_stream& operator=(const witness_stream&) = delete;

  std::size_t size() const noexcept override { return slots_.size(); }
  result<const any_witness*> wait(std::size_t p) override;
  bool ready(std::size_t p) const override;
  // The error of the first partition, in partition order, whose read has failed; ok where none has
  // (yet). Waits for no read.
  status first_failure() const;
  // Waits for every read; the first failure in partition order, or ok.
  status wait_all();

 private:
  void drive(std::size_t at_once, const on_driver_fn& on_driver);
  void publish(std::size_t p, result<any_witness> got);

  read_fn read_;
  mutable std::mutex m_;
  std::condition_variable done_;
  std::vector<std::optional<result<any_witness>>> slots_;
  std::size_t failed_at_ = SIZE_MAX;  // the smallest partition whose read failed
  bool stopping_ = false;
  std::jthread driver_;  // last: joined before the members it uses go
};

}  // namespace cuzk::engine
