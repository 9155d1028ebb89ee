// SPDX-License-Identifier: MIT OR Apache-2.0
// Where jobs live so that none is lost: the job store interface.
//
// The engine writes a job here before submit() returns, every state change as it happens, and the
// result when the job ends; at start it reads back every job that had not ended (queued or
// interrupted mid-proof) and queues it again. Results stay until purge_finished_before() removes
// them (the configured retention). Registered circuits are kept here too, so that a job queued
// before a restart still finds its circuit after it.
//
// The embedded implementation is SQLite (sqlite_job_store.hpp); pg_job_store.hpp keeps the jobs in
// a PostgreSQL server that several daemons can reach; memory_job_store.hpp keeps everything in
// memory for tests and for a daemon run without persistence.
//
// Errors: errc::unavailable is a fault that may pass (the database server restarting or out of
// reach, a lock held elsewhere, a full disk, a file system gone read-only): the same call may
// succeed later, and a write that failed so may or may not have been applied (insert() alone tells
// the two apart: its errors stored nothing, and insert_effect::outcome_unknown is the rest). Any
// other code is permanent: the same call fails the same way again. The engine retries the first
// kind and fails a job only for the second (docs/HARDENING.md, finding 17).
//
// Thread safety: every method may be called from any thread; implementations serialize.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "engine/jobs/job.hpp"

namespace cuzk::engine {

// A job as stored: its result plus where its witnesses are.
struct job_record {
  job_result info;
  // One .wtns path per partition, and whether the engine owns it (spooled: deleted when the job
  // ends) or the caller does.
  std::vector<std::string> witness_paths;
  std::vector<bool> spooled;
  // Per partition, witness_digest() of the bytes a client sent inline (empty for a path, and in
  // rows stored before digests were kept): a resubmission under the same request id is compared
  // against it, since the spooled bytes are gone once the job ends.
  std::vector<std::string> witness_digests;
  // Per partition, whether the file is a circom input JSON (the witness is computed from it when
  // the job runs) rather than a .wtns; empty in rows stored before inputs were taken.
  std::vector<bool> input_json;
};

struct circuit_record {
  std::string id;
  std::string zkey_path;
  priority default_priority = priority::normal;
  std::string wasm_path;  // the circuit's witness generator (circom's .wasm); empty: none
  // key_summary::digest of the key registered: every later load, a restart's too, must find it in
  // the file (docs/HARDENING.md, finding 21). Empty in rows stored before digests were kept.
  std::string key_digest;
};

// What insert() did.
enum class insert_effect {
  inserted,          // a new job, `id`
  request_id_taken,  // request_id was already used by job `id`; nothing was written
  // The store cannot tell whether it stored the job: its commit's reply was lost, and for a few
  // seconds after it the database stayed out of reach or the commit still under way
  // (pg_job_store.cpp). The job may be stored as `id`, naming the record's witness files, or not
  // at all; `why_unknown` says what was lost. Only the PostgreSQL store answers so: SQLite and
  // memory know their own outcome.
  outcome_unknown,
};

// An outcome that is not known is a value here, not an error status: errc is every layer's
// vocabulary and is stored with failed jobs (base/result.hpp), while this answer means something
// only to insert()'s caller, which must not take it for an error that wrote nothing (the engine
// deletes a refused submit's spooled witnesses; it keeps these: docs/HARDENING.md, finding 34).
struct insert_outcome {
  job_id id = 0;
  insert_effect effect = insert_effect::inserted;
  status why_unknown{};  // outcome_unknown: errc::unavailable, naming the server and the faults
  // outcome_unknown: what settle() asks the store about later (PostgreSQL: the transaction's id).
  std::string pending{};
};

// What became of a submit whose insert answered outcome_unknown, asked again (job_store::settle).
enum class submit_fate {
  stored,      // as the outcome's id, the record's own row
  not_stored,  // nothing of it is in the store
  unknown,     // still: the store out of reach, or the transaction still under way
};

class job_store {
 public:
  virtual ~job_store() = default;

  // Stores a new job in state queued and assigns its id (larger than every id before). When
  // info.request_id is non-empty and already used, stores nothing and returns that job's id. An
  // error stored nothing; where the store cannot tell, it answers insert_effect::outcome_unknown.
  virtual result<insert_outcome> insert(const job_record& rec) = 0;
  // Asks once more what became of `rec`'s insert that answered `unknown` (outcome_unknown), for a
  // caller that keeps the files the row would name until it knows: unavailable while the store is
  // out of reach (ask again later). Only a store whose insert can answer outcome_unknown has an
  // answer; the others refuse the question (errc::internal).
  virtual result<submit_fate> settle(const job_record& rec, const insert_outcome& unknown) {
    (void)rec;
    (void)unknown;
    return status(errc::internal, "job store: settle: this store's inserts always know their outcome");
  }
  // A running job's state and attempt count.
  virtual status update_state(job_id id, job_state state, uint32_t attempts) = 0;
  // A job's end (info.state terminal) with its result, or its return to the queue (info.state ==
  // queued) after a drain interrupted it.
  virtual status finish(const job_result& info) = 0;

  virtual result<std::optional<job_record>> get(job_id id) = 0;
  virtual result<std::optional<job_id>> find_request(const std::string& request_id) = 0;
  // Every job not in a terminal state, in id order.
  virtual result<std::vector<job_record>> unfinished() = 0;
  // Removes jobs that ended before `cutoff`; returns the witness paths they owned (spooled) so
  // the caller deletes any that remain.
  virtual result<std::vector<std::string>> purge_finished_before(wall_time cutoff) = 0;
  // Deletes one job, whatever its state, and frees its request id: for a job whose submit did not
  // complete (its inline witnesses were not all stored), whose id nobody was given. Ids are not
  // reused. A job that is not there is not an error.
  virtual status remove(job_id id) = 0;

  virtual status put_circuit(const circuit_record& c) = 0;  // insert or replace
  virtual status remove_circuit(const std::string& id) = 0;
  virtual result<std::vector<circuit_record>> circuits() = 0;
};

}  // namespace cuzk::engine
