// Everything an engine is built from, with defaults. The service's config table maps its TOML keys
// onto these fields; the engine itself reads no files and no environment.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "engine/loaded_key.hpp"
#include "engine/scheduler.hpp"
#include "engine/srs_manager.hpp"

namespace cuzk::engine {

enum class log_level { debug, info, warn, error };

struct engine_options {
  // The SQLite job database; its directory must exist. Empty: jobs are kept in memory only and do
  // not survive a restart.
  std::string store_path;
  // Where inline witnesses are spooled. Empty: store_path + ".spool" (or a directory under
  // /tmp when store_path is empty).
  std::string spool_dir;
  // Prover workers pulling from the scheduler.
  unsigned workers = 1;
  tier_budgets budgets;
  scheduler_options scheduling;
  // Verify every proof before returning it.
  bool verify_proofs = true;
  // How long a finished job's result stays retrievable.
  std::chrono::seconds result_retention{24 * 3600};
  // A job interrupted this many times (the daemon died while proving it) fails instead of being
  // retried: a witness that crashes the prover must not crash it forever.
  uint32_t max_attempts = 3;
  // A queued job whose deadline has passed when a worker picks it fails (code deadline_exceeded)
  // instead of running (off: it runs and is reported as a miss).
  bool fail_expired_jobs = false;
  // How thoroughly a key's points are checked when it is loaded.
  point_check key_check = point_check::on_curve;
  // One line per event (job queued, job ended with its phase times, key loaded, recovery).
  // Unset: nothing is logged. Witnesses, r and s are never logged.
  std::function<void(log_level, const std::string&)> log;
};

}  // namespace cuzk::engine
