// SPDX-License-Identifier: MIT OR Apache-2.0
// Job ends announced through LISTEN/NOTIFY (see pg_job_events.hpp).
#include "engine/jobs/pg_job_events.hpp"

#include <cstdlib>

#include "engine/jobs/pg_job_result.hpp"

namespace cuzk::engine {

result<std::unique_ptr<pg_job_events>> pg_job_events::open(const std::string& conninfo) {
  auto c = pg_connection::open(conninfo);
  if (!c) return c.error();
  auto listen = (*c)->exec("listen for job ends", std::string("LISTEN ") + pg_job_ended_channel);
  if (!listen) return listen.error();
  return std::unique_ptr<pg_job_events>(new pg_job_events(std::move(c).value()));
}

namespace {

// Ends announced and not waited for are kept, newest ids first, up to this many: every job of the
// cluster is announced to every listener, and most are awaited elsewhere or not at all. An awaiter
// reads the job's state before it waits, so an end that fell out of this set is still found there.
constexpr std::size_t max_kept = 4096;

}  // namespace

status pg_job_events::take_notifications() {
  auto ids = c_->notifications(pg_job_ended_channel);
  if (!ids) return ids.error();
  for (const auto& id : *ids) ended_.insert(static_cast<job_id>(std::strtoull(id.c_str(), nullptr, 10)));
  while (ended_.size() > max_kept) ended_.erase(ended_.begin());
  return status::ok();
}

result<bool> pg_job_events::wait_for_end(job_id id, std::chrono::milliseconds timeout) {
  std::lock_guard lk(m_);
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    CUZK_TRY(take_notifications());
    if (ended_.erase(id) > 0) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return false;
    // Rounded up: a wait cut to whole milliseconds below the time left would end before it.
    CUZK_TRY(c_->wait_readable(std::chrono::ceil<std::chrono::milliseconds>(until - now)));
  }
}

}  // namespace cuzk::engine
