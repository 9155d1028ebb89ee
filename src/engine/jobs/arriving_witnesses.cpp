// SPDX-License-Identifier: MIT OR Apache-2.0
// The witnesses of a job that proves while its submit still stores or checks them (see
// arriving_witnesses.hpp).
#include "engine/jobs/arriving_witnesses.hpp"

#include <string>

namespace cuzk::engine {

std::optional<result<any_witness>> arriving_witnesses::read(std::size_t q, const key_summary& key) {
  std::shared_lock lk(bytes_m_);
  if (q >= bytes_.size() || bytes_[q].empty()) return std::nullopt;
  return read_checked_inline_witness(bytes_[q], key, "partition " + std::to_string(q));
}

void arriving_witnesses::job_reads(std::size_t first, std::size_t count) {
  std::lock_guard lk(m_);
  if (readers_.size() < first + count) readers_.resize(first + count, reader::none);
  for (std::size_t q = first; q < first + count; ++q)
    if (readers_[q] == reader::none) readers_[q] = reader::job;
}

void arriving_witnesses::job_read_ended(std::size_t q, bool passed) {
  {
    std::lock_guard lk(m_);
    if (q >= readers_.size() || readers_[q] != reader::job) return;  // the check's to read
    readers_[q] = passed ? reader::passed : reader::none;
    if (!passed && (!failed_ || q < *failed_)) failed_ = q;
  }
  cv_.notify_all();
}

void arriving_witnesses::job_reads_over(std::size_t first, std::size_t count) {
  {
    std::lock_guard lk(m_);
    for (std::size_t q = first; q < first + count && q < readers_.size(); ++q)
      if (readers_[q] == reader::job) readers_[q] = reader::none;
  }
  cv_.notify_all();
}

std::optional<std::size_t> arriving_witnesses::failed_by_job() {
  std::lock_guard lk(m_);
  return failed_;
}

bool arriving_witnesses::passed_by_job(std::size_t q) {
  std::unique_lock lk(m_);
  if (readers_.size() <= q) readers_.resize(q + 1, reader::none);
  cv_.wait(lk, [&] { return readers_[q] != reader::job; });
  if (readers_[q] == reader::passed) return true;
  readers_[q] = reader::check;
  return false;
}

}  // namespace cuzk::engine
