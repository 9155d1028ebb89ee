// SPDX-License-Identifier: MIT OR Apache-2.0
// The witnesses of a job that proves while its submit still stores or checks them.
//
// A submit commits the job and queues it before the slow part of taking its witnesses has ended,
// and returns only once it has (engine_submit.cpp, 'submit'; local_job_source.cpp): inline .wtns bytes
// are written to the spool, and files named by path are read and every value checked against r.
// The proof overlaps that work, and the client still hears of a refused witness from the submit,
// as it would have before the job was queued. Until the submit returns it holds the request's
// bytes, and a worker that reaches the job first reads them here instead of from the spool. The
// job's end waits until the submit has settled: a job whose witnesses could not be stored or were
// refused is removed (engine::withdraw), and its submit tells the client why.
//
// A file named by path is read once where the job and the submit's checks both want it: the job's
// read of it checks every value as the submit's check does (witness.hpp, read_witness), so the
// check takes the job's word for a file the job has read (or is reading: it waits), and reads only
// the others. Read twice, each 2 GiB file of a 10 x 2^26 PoRep job was copied and checked twice,
// and the check's reads shared the memory bus with the job's at its start, while the device waited
// for its first witness (docs/gpu/proof.md, 'Submitting by path'). The job claims a batch's partitions as it begins to read them; a claim it gives up (its
// read failed, or never ran) goes back to the check, which then reads the file itself, so the
// client hears the check's own refusal as before.
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

class arriving_witnesses {
 public:
  // Per partition, the bytes sent inline (empty for a partition given by path), each already
  // passed by check_inline_witness().
  explicit arriving_witnesses(std::vector<std::span<const uint8_t>> bytes) : bytes_(std::move(bytes)) {}

  // Partition q's values, read from the request's bytes while the submit still holds them (the
  // header matched to the key again, the values not checked twice: read_checked_inline_witness);
  // nullopt once it has settled, or for a partition not sent inline.
  std::optional<result<any_witness>> read(std::size_t q, const key_summary& key);

  // The job, before it reads partitions first .. first + count - 1: the check leaves to its read each
  // one the check has not begun itself.
  void job_reads(std::size_t first, std::size_t count);
  // The job, once its read of q has ended: whether it passed (read, matched to the key and every
  // value below r). One that did not (or, job_reads_over(), never ran) goes back to the check.
  void job_read_ended(std::size_t q, bool passed);
  void job_reads_over(std::size_t first, std::size_t count);
  // The submit's check, before it reads q: true where the job's read of q passed (waiting while it
  // runs); false where the check is to read q itself, which it then holds.
  bool passed_by_job(std::size_t q);
  // The lowest partition whose read by the job failed, if any: the check reads it next, so that a
  // refused file is answered without reading the files after it first.
  std::optional<std::size_t> failed_by_job();

  // The submit's last word on the witnesses: whether every one is stored and passed its checks,
  // and where one was refused, the refusal the submit answered with (a retry under the same
  // request id answers it too). The bytes are not read after.
  void settle(bool accepted, status refusal = status::ok()) {
    {
      std::unique_lock bytes_lk(bytes_m_);
      bytes_.clear();
    }
    {
      std::lock_guard lk(m_);
      outcome_ = accepted ? state::accepted : state::refused;
      refusal_ = std::move(refusal);
    }
    cv_.notify_all();
  }

  // Blocks until settle(); whether the witnesses were accepted.
  bool wait_accepted() {
    std::unique_lock lk(m_);
    cv_.wait(lk, [&] { return outcome_ != state::arriving; });
    return outcome_ == state::accepted;
  }

  // After wait_accepted() said no: the witness refusal the submit answered with, or ok where the
  // witnesses were not refused but could not be stored.
  status refusal() {
    std::lock_guard lk(m_);
    return refusal_;
  }

 private:
  enum class state { arriving, accepted, refused };
  // Who reads a file named by path: nobody yet, the job (its read runs or is to run), the check.
  enum class reader : uint8_t { none, job, check, passed };
  std::shared_mutex bytes_m_;  // bytes_: shared by reads, alone by settle()
  std::vector<std::span<const uint8_t>> bytes_;  // empty once settled
  std::mutex m_;  // outcome_, readers_
  std::condition_variable cv_;
  std::vector<reader> readers_;  // grown on use: partitions past its end have none
  std::optional<std::size_t> failed_;  // the lowest partition whose read by the job failed
  state outcome_ = state::arriving;
  status refusal_;
};

}  // namespace cuzk::engine
