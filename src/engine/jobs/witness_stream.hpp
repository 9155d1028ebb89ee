// SPDX-License-Identifier: MIT OR Apache-2.0
// A batch's witnesses read on threads of their own and handed out as each read ends
// (batch_witnesses.hpp), so that the backend proves the first partitions while the last are read.
// At 2^25 a PoRep job's ten witness files are 1 GiB each and took 1.8 s to read, four at a time,
// before its batch could start (docs/gpu/msm.md, 'The daemon's batches at scale').
//
// Reads run `at_once` at a time on threads the stream starts (a read is a GiB of copying and
// checking: the global pool would hold a proof's loops behind it), in partition order, each
// published when it ends; a partition `on_driver` names (a read that must not run beside the
// others) is read in its turn on the stream's own thread. A stream made with
// `after` (the batch before's, reading ahead) starts its reads only once that one's have ended,
// so the two never share the disk and the batch before gets its last witness first. After a
// failed read, later partitions are not read; wait() on them says so. A read that throws
// (bad_alloc for a GiB buffer) is a failed read. The destructor stops reads not started and waits
// for those running, so the read function's captures must outlive the stream only until then.
//
// Thread safety: every method from any thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <latch>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "engine/jobs/batch_witnesses.hpp"

namespace cuzk::engine {

// Counted down once a stream's reads have all ended (read, failed or skipped); outlives the stream
// for a stream made after it.
using reads_ended = std::latch;

class witness_stream final : public batch_witnesses {
 public:
  using read_fn = std::function<result<any_witness>(std::size_t)>;
  using on_driver_fn = std::function<bool(std::size_t)>;

  // Starts reading partitions 0 .. count - 1 with read(p), once `after` is set (null: at once).
  witness_stream(std::size_t count, std::size_t at_once, read_fn read, on_driver_fn on_driver = nullptr,
                 std::shared_ptr<reads_ended> after = nullptr);
  ~witness_stream() override;
  witness_stream(const witness_stream&) = delete;
  witness_stream& operator=(const witness_stream&) = delete;

  std::size_t size() const noexcept override { return slots_.size(); }
  result<const any_witness*> wait(std::size_t p) override;
  bool ready(std::size_t p) const override;
  // The error of the first partition, in partition order, whose read has failed; ok where none has
  // (yet). Waits for no read.
  status first_failure() const;
  // The error of the first failed read a wait() handed out (what ended a batch that asked in
  // order); ok where none did.
  status handed_out_failure() const;
  // Waits for every read; the first failure in partition order, or ok.
  status wait_all();
  // Set once every read has ended: for the stream of the batch after.
  std::shared_ptr<reads_ended> ended() const { return ended_; }

 private:
  void drive(std::size_t at_once, const on_driver_fn& on_driver, const std::shared_ptr<reads_ended>& after);
  void publish(std::size_t p, result<any_witness> got);
  result<any_witness> read_or_skip(std::size_t p);

  read_fn read_;
  std::shared_ptr<reads_ended> ended_ = std::make_shared<reads_ended>(1);
  mutable std::mutex m_;
  std::condition_variable done_;
  std::vector<std::optional<result<any_witness>>> slots_;
  std::size_t failed_at_ = SIZE_MAX;   // the smallest partition whose read failed
  std::size_t handed_out_ = SIZE_MAX;  // the smallest partition whose failure wait() returned
  bool stopping_ = false;
  std::jthread driver_;  // last: joined before the members it uses go
};

}  // namespace cuzk::engine
