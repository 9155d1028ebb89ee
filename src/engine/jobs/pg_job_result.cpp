// SPDX-License-Identifier: MIT OR Apache-2.0
// A job's end as PostgreSQL rows (see pg_job_result.hpp).
#include "engine/jobs/pg_job_result.hpp"

namespace cuzk::engine {

namespace {

// A double precision[] literal, "{0.5,0,2.25}".
std::string seconds_to_array(const phase_times& t) {
  std::string out = "{";
  for (std::size_t k = 0; k < t.seconds.size(); ++k) {
    if (k > 0) out += ',';
    out += pg_text(t.seconds[k]);
  }
  return out + "}";
}

}  // namespace

status pg_write_result(pg_connection& c, const job_result& i) {
  const std::string id = pg_text(int64_t(i.id));
  auto r = c.exec(
      "finish job",
      "UPDATE jobs SET state = $1, attempts = $2, finished_ms = $3, error_code = $4, error_message = $5, "
      "deadline_missed = $6, phase_seconds = $7, ran_on = $8, h2d_bytes = $9 WHERE id = $10",
      {pg_text(int64_t(i.state)), pg_text(int64_t(i.attempts)),
       i.finished_at ? pg_param(pg_text(to_unix_ms(*i.finished_at))) : std::nullopt,
       pg_text(int64_t(i.error.code())), i.error.message(), pg_text(i.deadline_missed),
       seconds_to_array(i.times), i.ran_on, pg_text(i.h2d_bytes), id});
  if (!r) return r.error();
  for (std::size_t k = 0; k < i.proofs.size(); ++k) {
    auto p =
        c.exec("store proof",
               "UPDATE job_partitions SET proof_json = $1, public_json = $2 WHERE job_id = $3 AND idx = $4",
               {i.proofs[k].proof_json, i.proofs[k].public_json, id, pg_text(int64_t(k))});
    if (!p) return p.error();
  }
  // Delivered when the caller's transaction commits, and only then: an await on any node wakes for a
  // result that is stored (pg_job_events.hpp), never for one a refused commit rolled back.
  if (is_terminal(i.state)) {
    auto n = c.exec("announce the job's end", "SELECT pg_notify($1, $2)", {pg_job_ended_channel, id});
    if (!n) return n.error();
  }
  return status::ok();
}

}  // namespace cuzk::engine
