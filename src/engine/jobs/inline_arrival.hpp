// SPDX-License-Identifier: MIT OR Apache-2.0
// The inline witnesses of a job that proves while its submit stores them.
//
// A submit with witnesses sent inline commits the job and queues it before the witnesses are on
// disk, and returns only once they are (engine.cpp, 'submit'): the proof and the write overlap,
// and nothing the client was told about is lost. Until the submit returns it holds the request's
// bytes, and a worker that reaches the job first reads them here instead of from the spool. The
// job's end waits until the submit knows whether the bytes were stored: a job whose witnesses
// could not be stored is removed, and its submit tells the client so.
//
// Thread safety: any thread. Reads share a lock that settle() (the submit, about to return and free
// the bytes) takes alone, so it waits for the reads in progress and none starts after it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "engine/jobs/witness.hpp"
#include "engine/jobs/key_summary.hpp"

namespace cuzk::engine {

class inline_arrival {
 public:
  // Per partition, the bytes sent inline (empty for a partition given by path), each already
  // passed by check_inline_witness().
  explicit inline_arrival(std::vector<std::span<const uint8_t>> bytes) : bytes_(std::move(bytes)) {}

  // Partition q's values, read from the request's bytes while the submit still holds them (the
  // header matched to the key again, the values not checked twice: read_checked_inline_witness);
  // nullopt once it has settled, or for a partition not sent inline.
  std::optional<result<any_witness>> read(std::size_t q, const key_summary& key);

  // The submit's last word on the bytes: whether every one is stored. They are not read after.
  void settle(bool stored) {
    {
      std::unique_lock bytes_lk(bytes_m_);
      bytes_.clear();
    }
    {
      std::lock_guard lk(m_);
      outcome_ = stored ? state::stored : state::failed;
    }
    cv_.notify_all();
  }

  // Blocks until settle(); whether the witnesses were stored.
  bool wait_stored() {
    std::unique_lock lk(m_);
    cv_.wait(lk, [&] { return outcome_ != state::storing; });
    return outcome_ == state::stored;
  }

 private:
  enum class state { storing, stored, failed };
  std::shared_mutex bytes_m_;  // bytes_: shared by reads, alone by settle()
  std::vector<std::span<const uint8_t>> bytes_;  // empty once settled
  std::mutex m_;  // outcome_
  std::condition_variable cv_;
  state outcome_ = state::storing;
};

}  // namespace cuzk::engine
