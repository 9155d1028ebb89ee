// SPDX-License-Identifier: MIT OR Apache-2.0
// engine::create (see engine.hpp): the parts the options describe (store, backend, spool, folders),
// then the engine, its job source (this daemon alone, or its part in a cluster), its recovery and
// its threads. Apart from engine.cpp so that the engine's own code knows only the job_source
// interface, and each source the engine it serves.
#include <unistd.h>

#include <filesystem>

#include "engine/backends/backend_select.hpp"
#include "engine/cluster_member.hpp"
#include "engine/engine.hpp"
#include "engine/jobs/cluster_node.hpp"
#include "engine/jobs/memory_job_store.hpp"
#include "engine/jobs/pg_job_store.hpp"
#include "engine/jobs/sqlite_job_store.hpp"
#include "engine/local_job_source.hpp"

namespace cuzk::engine {

namespace {

std::string default_spool_dir(const engine_options& o) {
  if (!o.spool_dir.empty()) return o.spool_dir;
  if (!o.store_path.empty()) return o.store_path + ".spool";
  return (std::filesystem::temp_directory_path() / ("cuzk-spool-" + std::to_string(::getpid()))).string();
}

}  // namespace

result<std::unique_ptr<engine>> engine::create(engine_options opt, engine_parts parts) {
  if (opt.workers == 0)
    return status(errc::invalid_argument, "engine: workers: expected at least 1, found 0");
  if (opt.scheduling.max_batch_size == 0)
    return status(errc::invalid_argument, "engine: max_batch_size: expected at least 1, found 0");
  if (!parts.store) {
    if (!opt.database.empty()) {
      auto s = pg_job_store::open(opt.database);
      if (!s) return s.error();
      parts.store = std::shared_ptr<job_store>(std::move(s).value());
    } else if (opt.store_path.empty()) {
      parts.store = std::make_shared<memory_job_store>();
    } else {
      auto s = sqlite_job_store::open(opt.store_path);
      if (!s) return s.error();
      parts.store = std::shared_ptr<job_store>(std::move(s).value());
    }
  }
  std::string backend_note;
  if (!parts.backend) {
    auto b = select_backend(opt.backend, opt.gpu, opt.workers);
    if (!b) return b.error().with_context("engine");
    parts.backend = std::move(b->backend);
    parts.devices = std::move(b->devices);
    if (!parts.hot_allocator) parts.hot_allocator = std::move(b->hot_allocator);
    backend_note = std::move(b->note);
  }
  for (int slot : parts.backend->worker_slots())
    if (slot < 0 || static_cast<std::size_t>(slot) >= parts.devices.slots.size())
      return status(errc::invalid_argument, "engine: a worker of the " + std::string(parts.backend->name()) +
                                                " backend serves slot " + std::to_string(slot) + ", expected one of " +
                                                std::to_string(parts.devices.slots.size()) + " device slots");
  if (!parts.devices.slots.empty() && !parts.devices.uploader)
    return status(errc::invalid_argument, "engine: device slots without an uploader");
  if (!parts.hot_allocator) parts.hot_allocator = std::make_shared<pageable_allocator>();
  if (!parts.gpu_monitor && !parts.devices.slots.empty())
    parts.gpu_monitor = std::make_unique<gpu_utilization_monitor>();
  // In a cluster the spool is this node's directory under the shared root (cluster_node.hpp).
  if (!opt.database.empty()) opt.cluster.node_name = cluster_node_name(opt.cluster.node_name);
  auto spool = witness_spool::open(opt.database.empty()
                                       ? default_spool_dir(opt)
                                       : cluster_spool_dir(default_spool_dir(opt), opt.cluster.node_name));
  if (!spool) return spool.error();
  auto dirs = witness_dirs::create(opt.witness_dirs);
  if (!dirs) return dirs.error().with_context("engine");
  auto key_dirs = witness_dirs::create(opt.key_dirs, "key_dirs");
  if (!key_dirs) return key_dirs.error().with_context("engine");
  std::unique_ptr<engine> e(new engine(std::move(opt), std::move(parts), std::move(spool).value(),
                                       std::move(dirs).value(), std::move(key_dirs).value()));
  // A daemon alone until it joins its cluster below; a drain on the way out needs a source.
  e->source_ = std::make_unique<local_job_source>(*e);
  if (!backend_note.empty()) e->log(log_level::info, "engine: " + backend_note);
  if (const auto& m = e->telemetry_.gpu_monitor; m && !m->available())
    e->log(log_level::warn, "engine: GPU utilization not sampled: " + m->unavailable_reason());
  if (!e->opt_.database.empty()) {
    auto member = cluster_member::open(*e);
    if (!member) return member.error();
    e->source_ = std::move(member).value();
  }
  CUZK_TRY(e->recover());
  e->start_threads();
  return e;
}

}  // namespace cuzk::engine
