// The one-daemon lock on a job database (see pg_single_daemon_lock.hpp).
#include "engine/jobs/pg_single_daemon_lock.hpp"

#include <thread>

namespace cuzk::engine {

namespace {

// The advisory lock's key: fixed, and not the migrations' (pg_schema.cpp).
constexpr const char* try_lock = "SELECT pg_try_advisory_lock(1668643436)";

}  // namespace

result<std::unique_ptr<pg_single_daemon_lock>> pg_single_daemon_lock::acquire(
    const std::string& conninfo, std::chrono::milliseconds wait) {
  auto c = pg_connection::open(conninfo);
  if (!c) return c.error();
  const auto until = std::chrono::steady_clock::now() + wait;
  for (;;) {
    auto r = (*c)->exec("take the job database's daemon lock", try_lock);
    if (!r) return r.error();
    if (r->boolean(0, 0))
      return std::unique_ptr<pg_single_daemon_lock>(new pg_single_daemon_lock(std::move(*c)));
    if (std::chrono::steady_clock::now() >= until)
      return status(errc::failed_precondition,
                    (*c)->name() +
                        ": another cuzk daemon uses this job database; one daemon per database for now "
                        "(docs/cluster.md: the engine does not yet claim its jobs through leases)");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace cuzk::engine
