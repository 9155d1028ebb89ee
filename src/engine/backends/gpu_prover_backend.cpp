// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU backend: worker slots, device budgets and eviction (see gpu_prover_backend.hpp). It
// holds policy only: the proof is the GPU prover's (groth16/gpu/gpu_prover.hpp), a key on a device
// is gpu_device_key.hpp's, and the CUDA runtime is behind groth16/gpu/.
#include "engine/backends/gpu_prover_backend.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <vector>

#include "engine/backends/cpu_prover_backend.hpp"
#include "engine/backends/gpu_device_key.hpp"
#include "engine/backends/gpu_pinned_allocator.hpp"
#include "engine/backends/gpu_slots.hpp"
#include "engine/backends/gpu_staging.hpp"
#include "groth16/gpu/gpu_batch_prover.hpp"
#include "groth16/gpu/gpu_devices.hpp"
#include "groth16/gpu/gpu_prover.hpp"
#include "groth16/gpu/gpu_workspace.hpp"
#include "groth16/os_random.hpp"

namespace cuzk::engine {

namespace {

class gpu_backend final : public prover_backend {
 public:
  gpu_backend(std::shared_ptr<gpu_slots> sh, unsigned workers_per_device, groth16::synthesis_place place,
              unsigned batch_partitions)
      : sh_(std::move(sh)), place_(place), batch_partitions_(std::max(1u, batch_partitions)) {
    const std::size_t n = sh_->slots.size() * workers_per_device;
    for (std::size_t i = 0; i < n; ++i) {
      workers_.push_back(std::make_unique<worker_state>());
      workers_.back()->slot = static_cast<int>(i % sh_->slots.size());
    }
  }

  void attach_memory(memory_budgets& budgets) override {
    std::set<int> ordinals;
    for (const auto& sl : sh_->slots) ordinals.insert(sl->slot.ordinal);
    for (int o : ordinals)
      if (memory_budget* b = budgets.device(o)) {
        budgets_[o] = b;
        evictors_.push_back(b->add_evictor("idle workers' proof buffers", evictor_rank::idle_device_buffers,
                                           [this, o](uint64_t missing) { return free_idle_buffers(o, missing); }));
      }
  }

  const char* name() const noexcept override { return "gpu"; }

  std::vector<int> worker_slots() const override {
    std::vector<int> out;
    for (const auto& w : workers_) out.push_back(w->slot);
    return out;
  }

  result<any_proof> prove(const prove_call& call, const any_witness& witness, const cancel_token& cancel,
                          prove_report& report) override {
    CUZK_TRY(check_worker(call));
    worker_state& w = *workers_[call.worker];
    gpu_slot_state& sl = *sh_->slots[w.slot];
    if (call.on_device == nullptr) {
      {
        std::lock_guard lk(sl.m);
        ++sl.stats.cpu_fallbacks;
      }
      return cpu_.prove(call, witness, cancel, report);
    }
    // A batch of one.
    const any_witness* one[] = {&witness};
    ready_witnesses batch(one);
    auto proofs = prove_on_slot(call, batch, cancel, report);
    if (!proofs) return proofs.error();
    return std::move(proofs->front());
  }

  // Batches only keys with streamed vectors: there each range of points crosses PCIe once for the
  // batch. A key resident whole has nothing to share, and a batch would only hold more device
  // memory (every partition's witness and h, and a bucket set each).
  unsigned batch_partitions(const prove_call& call, unsigned remaining) override {
    if (call.on_device == nullptr || !check_worker(call)) return 1;
    const auto& dk = static_cast<const gpu_device_key&>(*call.on_device);
    return formats::with_curve(call.key.curve(),
                               [&]<class C>() { return batch_on<C>(call, *call.key.get<C>(), dk, remaining); });
  }

  result<std::vector<any_proof>> prove_batch(const prove_call& call, batch_witnesses& witnesses,
                                             const cancel_token& cancel, prove_report& report) override {
    if (witnesses.size() < 2 || call.on_device == nullptr)
      return prover_backend::prove_batch(call, witnesses, cancel, report);
    CUZK_TRY(check_worker(call));
    return prove_on_slot(call, witnesses, cancel, report);
  }

  // The witness as read (pageable), its pinned staging, and a | b | c on the host when synthesis
  // runs there (pinned, from the pool; or pageable in the workspace, the measuring switch). A key
  // without a device copy is proved by the CPU backend, which needs less than the sum of both.
  // Where the key's uploads put its synthesis on the host (gpu_slots.hpp, key_shapes), its place,
  // not the backend's. A job admitted before the key's first upload counts the backend's place;
  // its proof's staging then takes the difference from the budget without waiting, or stages in
  // pageable memory (pinned_pool.hpp). A preload uploads the key before any job.
  proof_memory memory_per_proof(const key_summary& k) const override {
    constexpr uint64_t scalar = 32;
    const groth16::synthesis_place place =
        place_ == groth16::synthesis_place::device && sh_->host_synthesis.contains({k.curve, k.n_vars, k.domain_size})
            ? groth16::synthesis_place::host_pinned
            : place_;
    const staging_layout l = staging_for(k.n_vars, k.domain_size, place);
    const uint64_t pageable_abc = place == groth16::synthesis_place::host_pageable ? 3 * uint64_t{k.domain_size} * scalar : 0;
    const uint64_t gpu_host = uint64_t{k.n_vars} * scalar + l.total() + pageable_abc;
    // Host synthesis into pageable memory takes nothing from the pinned pool (take_staging).
    const uint64_t pinned = place == groth16::synthesis_place::host_pageable ? 0 : l.total();
    return {std::max(gpu_host, cpu_.memory_per_proof(k).host), pinned};
  }

  std::vector<device_activity> activity() const override {
    std::vector<device_activity> out;
    for (std::size_t k = 0; k < sh_->slots.size(); ++k) {
      const gpu_slot_state& sl = *sh_->slots[k];
      std::lock_guard lk(sl.m);
      device_activity a = sl.stats;
      for (const auto& w : workers_)
        if (w->slot == static_cast<int>(k)) {
          a.workspace_pinned_bytes += w->pinned_bytes;
          a.workspace_device_bytes += w->device_bytes;
          a.workspace_allocations += w->allocations;
          a.workspace_evictions += w->evictions;
        }
      out.push_back(std::move(a));
    }
    return out;
  }

 private:
  struct worker_state {
    int slot = 0;
    // Held while the worker proves, or while the evictor frees its buffers: whoever holds it owns
    // bn, bls and device_mem. The evictor only tries it, so it never waits for a proof.
    std::mutex claimed;
    std::unique_ptr<groth16::gpu_workspace<bn254>> bn;
    std::unique_ptr<groth16::gpu_workspace<bls12_381>> bls;
    reservation device_mem;  // the workspaces' device bytes in the device's budget (with one)
    // Copies of the workspaces' sizes for activity(), written under the slot's counter lock.
    uint64_t pinned_bytes = 0, device_bytes = 0, allocations = 0, evictions = 0;

    // f(workspace) summed over the workspaces the worker has.
    template <class F>
    uint64_t over_workspaces(F f) const {
      return (bn ? uint64_t(f(*bn)) : 0) + (bls ? uint64_t(f(*bls)) : 0);
    }
    uint64_t workspace_device_bytes() const {
      return over_workspaces([](const auto& each) { return each.device_bytes(); });
    }
    uint64_t workspace_allocations() const {
      return over_workspaces([](const auto& each) { return each.allocations(); });
    }

    template <class C>
    std::unique_ptr<groth16::gpu_workspace<C>>& workspace() {
      if constexpr (std::is_same_v<C, bn254>)
        return bn;
      else
        return bls;
    }
  };

  // The call's worker exists, and its key copy is on the slot that worker serves.
  status check_worker(const prove_call& call) const {
    if (call.worker < 0 || static_cast<std::size_t>(call.worker) >= workers_.size())
      return status(errc::invalid_argument, "gpu backend: worker " + std::to_string(call.worker) +
                                                ": expected one of " + std::to_string(workers_.size()));
    return status::ok();
  }
  status check_slot(const prove_call& call, const worker_state& w) const {
    if (call.slot == w.slot) return status::ok();
    return status(errc::internal, "gpu backend: worker " + std::to_string(call.worker) + " serves " +
                                      sh_->slots[w.slot]->slot.name + ", its key copy is for slot " +
                                      std::to_string(call.slot));
  }

  // Ends what the workspace was lent, when the proof (or batch) returns, at the latest.
  template <class C>
  struct unlend {
    std::unique_ptr<groth16::gpu_workspace<C>>& ws;
    ~unlend() {
      if (ws) ws->unlend_host();
    }
  };

  // The pool's staging lent to a workspace: the pool's lease moves into it, and goes back to the
  // pool when the workspace ends it (once the copies have read the buffers).
  template <class C>
  struct pooled_staging final : groth16::host_lease<C> {
    using fr = typename C::fr;
    using repr = typename fr::repr;
    pooled_staging(pinned_lease l, const staging_layout& layout)
        : groth16::host_lease<C>(
              {l.as<repr>(), static_cast<std::size_t>(layout.witness_bytes / sizeof(repr))},
              {layout.abc_bytes != 0 ? reinterpret_cast<fr*>(l.data() + layout.abc_offset) : nullptr,
               static_cast<std::size_t>(layout.abc_bytes / sizeof(fr))}),
          lease(std::move(l)) {}
    pinned_lease lease;
  };

  // A proof's host staging from the pool (charged to the job's working set), when synthesis does
  // not run into pageable memory; an empty lease otherwise.
  struct staging {
    pinned_lease lease;
    staging_layout layout;
    bool pooled = false;

    // Lent to `ws` for the next call (a proof or a batch): the workspace holds it, and gives it
    // back to the pool as soon as the copies have read it.
    template <class C>
    void lend_to(groth16::gpu_workspace<C>& ws) {
      if (!pooled) return;
      ws.lend_host(std::make_unique<pooled_staging<C>>(std::move(lease), layout));
    }
  };
  template <class C>
  result<staging> take_staging(const prove_call& call, const gpu_slot_state& sl, const key_material<C>& m,
                               groth16::synthesis_place place, prove_report& report) {
    staging s;
    s.pooled = call.pinned != nullptr && place != groth16::synthesis_place::host_pageable;
    s.layout = staging_for(m.view.n_vars, m.view.domain_size, place);
    if (!s.pooled) return s;
    auto lease = call.pinned->acquire(std::string(call.circuit), s.layout.total(), call.working_set);
    if (!lease) return lease.error().with_context(sl.slot.name + ": pinned staging");
    s.lease = std::move(lease).value();
    report.pinned_fallback = !s.lease.pinned();
    return s;
  }

  // The worker's workspace for curve C: made on its first proof of that curve (streams and
  // events, no buffers yet).
  template <class C>
  status ensure_workspace(worker_state& w, const gpu_slot_state& sl) {
    auto& ws = w.workspace<C>();
    if (ws) return status::ok();
    auto made = groth16::gpu_workspace<C>::create(sl.slot.ordinal);
    if (!made) return made.error();
    ws = std::make_unique<groth16::gpu_workspace<C>>(std::move(made).value());
    return status::ok();
  }

  // `proofs` proven on the slot (of them, `batched` in a batch), with the report's GPU times.
  static void count_proofs(gpu_slot_state& sl, const prove_report& report, uint64_t proofs, uint64_t batched) {
    std::lock_guard lk(sl.m);
    sl.stats.proofs += proofs;
    sl.stats.batched_proofs += batched;
    sl.stats.busy_s += report.phases.lock_held;
    sl.stats.wait_s += report.phases.lock_wait;
    sl.stats.h2d_bytes += report.phases.h2d_bytes;
    sl.stats.h2d_s += report.phases.h2d;
  }

  // Holds a worker's claim for one proof; at its end the worker's buffers are idle, so whoever
  // waits for device memory looks again.
  struct claim {
    std::unique_lock<std::mutex> held;
    memory_budget* budget;
    claim(worker_state& ws, memory_budget* b) : held(ws.claimed), budget(b) {}
    ~claim() {
      held.unlock();
      if (budget != nullptr) budget->wake_waiters();
    }
    claim(const claim&) = delete;
    claim& operator=(const claim&) = delete;
  };

  memory_budget* budget_of(int ordinal) const {
    auto it = budgets_.find(ordinal);
    return it == budgets_.end() ? nullptr : it->second;
  }

  // The device budget's evictor: the buffers of workers on `ordinal` that are not proving, freed
  // until `missing` bytes are (the next proof of such a worker allocates them again).
  uint64_t free_idle_buffers(int ordinal, uint64_t missing) {
    uint64_t freed = 0;
    for (auto& wp : workers_) {
      if (freed >= missing) break;
      worker_state& w = *wp;
      gpu_slot_state& sl = *sh_->slots[w.slot];
      if (sl.slot.ordinal != ordinal) continue;
      std::unique_lock held(w.claimed, std::try_to_lock);
      if (!held.owns_lock()) continue;  // proving: its buffers are in use
      if (w.bn || w.bls) {
        w.bn.reset();  // each workspace frees on its own device and restores the current one
        w.bls.reset();
        freed += w.device_mem.bytes();
        w.device_mem.reset();
        std::lock_guard lk(sl.m);
        w.pinned_bytes = w.device_bytes = 0;
        ++w.evictions;
      }
    }
    return freed;
  }

  // The worker's reservation grown to `want` bytes (waiting in the budget's line, at most
  // device_memory_timeout); nothing to do where it holds that much.
  status reserve_device_bytes(worker_state& w, gpu_slot_state& sl, uint64_t want, const cancel_token& cancel,
                              prove_report& report) {
    memory_budget* b = budget_of(sl.slot.ordinal);
    if (b == nullptr) return status::ok();
    const uint64_t held = w.device_mem.bytes();
    if (want <= held) return status::ok();
    const auto t0 = std::chrono::steady_clock::now();
    const std::string purpose = "the proof buffers of a worker of " + sl.slot.name;
    auto more = b->acquire(want - held, {&cancel, device_memory_timeout, purpose, true, nullptr});
    report.device_memory_wait += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!more) return more.error();
    if (!w.device_mem) {
      w.device_mem = std::move(more).value();
      return status::ok();
    }
    return w.device_mem.absorb(std::move(more).value());
  }

  // The device bytes a worker's buffers hold for a batch of `partitions` proofs of `gk` (one
  // proof's workspace and what the batch adds, groth16::batch_device_bytes).
  template <class C>
  static uint64_t batch_buffer_bytes(const key_material<C>& m, const groth16::gpu_proving_key<C>& gk,
                                     unsigned partitions) {
    constexpr uint64_t scalar = 32;
    using workspace = groth16::gpu_workspace<C>;
    const uint64_t abc = workspace::abc_elements(m.view.n_vars, m.view.domain_size, gk.synthesis(), gk.abc());
    const uint64_t witness = workspace::witness_of_its_own(gk.synthesis(), gk.abc()) ? m.view.n_vars : 0;
    const uint64_t single = (abc + witness) * scalar + gk.msm_scratch().total();
    return single + groth16::batch_device_bytes<C>(m.view, gk, partitions);
  }

  // The largest batch, up to batch_partitions_ and `remaining`, whose buffers fit in what the
  // device budget has free now plus what the worker holds already; 1 when none of 2 or more does.
  template <class C>
  unsigned batch_on(const prove_call& call, const key_material<C>& m, const gpu_device_key& dk, unsigned remaining) {
    const auto* gk = std::get_if<groth16::gpu_proving_key<C>>(&dk.key);
    if (gk == nullptr || gk->streamed().empty()) return 1;
    unsigned most = std::min(remaining, batch_partitions_);
    worker_state& w = *workers_[call.worker];
    memory_budget* b = budget_of(sh_->slots[w.slot]->slot.ordinal);
    if (b == nullptr) return most;
    uint64_t held;
    {
      std::lock_guard own(w.claimed);  // the evictor may free the worker's buffers meanwhile
      held = w.device_mem.bytes();
    }
    const uint64_t used = b->used();
    const uint64_t room = (b->limit() > used ? b->limit() - used : 0) + held;
    for (; most > 1; --most)
      if (batch_buffer_bytes(m, *gk, most) <= room) return most;
    return 1;
  }

  // The call's witnesses (one, or a batch's) proven on the worker's slot, with the worker claimed
  // (the evictor of idle buffers passes it by).
  result<std::vector<any_proof>> prove_on_slot(const prove_call& call, batch_witnesses& witnesses,
                                               const cancel_token& cancel, prove_report& report) {
    worker_state& w = *workers_[call.worker];
    gpu_slot_state& sl = *sh_->slots[w.slot];
    CUZK_TRY(check_slot(call, w));
    const auto& dk = static_cast<const gpu_device_key&>(*call.on_device);
    claim c(w, budget_of(sl.slot.ordinal));
    return formats::with_curve(call.key.curve(), [&]<class C>() {
      return prove_on<C>(call, w, sl, *call.key.get<C>(), dk, witnesses, cancel, report);
    });
  }

  // One path for one proof and a batch (groth16::prove_batch_from; a proof is a batch of one).
  template <class C>
  result<std::vector<any_proof>> prove_on(const prove_call& call, worker_state& w, gpu_slot_state& sl,
                                          const key_material<C>& m, const gpu_device_key& dk,
                                          batch_witnesses& witnesses, const cancel_token& cancel,
                                          prove_report& report) {
    using fr = typename C::fr;
    using repr = typename fr::repr;
    const auto* gk = std::get_if<groth16::gpu_proving_key<C>>(&dk.key);
    if (gk == nullptr) return status(errc::internal, "gpu backend: the device copy is of the other curve");
    const auto parts = static_cast<unsigned>(witnesses.size());
    const bool batch = parts > 1;
    auto& ws = w.workspace<C>();
    // One staging for the call: each partition's witness (and a | b | c) passes through it in
    // turn, and it goes back to the pool as soon as the copies have read the last
    // (gpu_workspace::lend_host), so the next proof's synthesis can fill it while this call waits
    // for the device.
    const groth16::synthesis_place place = gk->synthesis();
    auto staged = take_staging(call, sl, m, place, report);
    if (!staged) return staged.error();
    unlend<C> unlend_at_exit{ws};
    CUZK_TRY(ensure_workspace<C>(w, sl));
    // The call's device bytes, reserved before the buffers grow to them: the workspace at the
    // call's size, and a batch's witnesses and h vectors (the prover's, freed when it returns; the
    // arenas stay at the batch's size, and so does the reservation, which follows what the buffers
    // hold).
    const groth16::msm_scratch_sizes scratch = groth16::batch_msm_scratch<C>(m.view, *gk, parts);
    const uint64_t vectors = batch ? uint64_t{parts} * (m.view.n_vars + m.view.domain_size) * sizeof(repr) : 0;
    const uint64_t want = w.workspace_device_bytes() - ws->device_bytes() +
                          ws->device_bytes_after(m.view.n_vars, m.view.domain_size, place, gk->abc(), scratch) +
                          vectors;
    if (const status r = reserve_device_bytes(w, sl, want, cancel, report); !r)
      return r.with_context(sl.slot.name + ": device memory" +
                            (batch ? " for a batch of " + std::to_string(parts) : std::string()));
    struct follow_holdings {
      gpu_backend& self;
      worker_state& w;
      gpu_slot_state& sl;
      ~follow_holdings() { self.follow_holdings_of(w, sl); }
    } at_exit{*this, w, sl};
    staged->lend_to(*ws);
    // Allocates only on the worker's first proof of this curve or of a larger circuit or batch (or
    // after the evictor freed its buffers); a batch's witness and h vectors are the prover's,
    // allocated and freed inside the call.
    const status grown = ws->reserve(m.view.n_vars, m.view.domain_size, place, gk->abc(), scratch);
    // The reservation follows what the buffers hold (less than reserved when a growth failed).
    follow_holdings_of(w, sl);
    CUZK_TRY(grown);
    // Each witness as the engine's read of it ends: the prover starts on the first partitions
    // (their copies, synthesis and transforms) while the last are read.
    groth16::batch_witness_source<C> source;
    source.count = parts;
    source.ready = [&witnesses](std::size_t p) { return witnesses.ready(p); };
    source.wait = [&witnesses, batch](std::size_t p) -> result<std::span<const repr>> {
      auto read = witnesses.wait(p);
      if (!read) return read.error();
      if ((*read)->curve != formats::curve_id_of<C>)
        return status(errc::invalid_argument,
                      (batch ? "partition " + std::to_string(p) + " of the batch: " : std::string()) +
                          "witness: expected " + C::name + " values for a " + C::name + " key");
      return std::span<const repr>((*read)->values);
    };
    std::vector<fr> r(parts), s(parts);
    for (unsigned p = 0; p < parts; ++p) {
      r[p] = groth16::os_random_scalar<fr>();
      s[p] = groth16::os_random_scalar<fr>();
    }
    const groth16::gpu_context<C> where{*gk, ws.get()};
    auto proofs = groth16::prove_batch_from<C>(m.view, source, r, s, &report.phases, where);
    report.ran_on = sl.slot.name;
    if (!proofs) return proofs.error().with_context(sl.slot.name);
    count_proofs(sl, report, parts, batch ? parts : 0);
    std::vector<any_proof> out;
    for (auto& p : *proofs) out.emplace_back(std::move(p));
    return out;
  }

  // The worker's reservation and counters follow what its buffers hold now.
  void follow_holdings_of(worker_state& w, gpu_slot_state& sl) {
    const uint64_t holds = w.workspace_device_bytes();
    if (w.device_mem.bytes() > holds) w.device_mem.release(w.device_mem.bytes() - holds);
    std::lock_guard lk(sl.m);
    w.pinned_bytes = w.over_workspaces([](const auto& each) { return each.pinned_bytes(); });
    w.device_bytes = holds;
    w.allocations = w.workspace_allocations();
  }

  // A worker waits this long for device memory for its buffers: it holds its key's copy meanwhile,
  // so a wait that long means the device's budget cannot hold the key and the buffers together.
  static constexpr std::chrono::milliseconds device_memory_timeout{std::chrono::seconds(60)};

  std::shared_ptr<gpu_slots> sh_;
  groth16::synthesis_place place_;
  unsigned batch_partitions_;  // gpu_options::batch_partitions
  std::vector<std::unique_ptr<worker_state>> workers_;
  cpu_prover_backend cpu_;
  std::map<int, memory_budget*> budgets_;  // by ordinal, set once by attach_memory()
  std::vector<evictor_registration> evictors_;  // last: unregistered before the workers go
};

std::string mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

result<gpu_parts> make_gpu_backend(const gpu_options& o) {
  if (o.workers_per_device == 0)
    return status(errc::invalid_argument, "gpu: workers per device: expected at least 1, found 0");
  auto count = groth16::gpu_device_count();
  if (!count) return count.error();
  if (*count == 0) return status(errc::unsupported, "no CUDA device found");
  std::vector<int> ordinals = o.devices;
  if (ordinals.empty())
    for (int d = 0; d < *count; ++d) ordinals.push_back(d);
  for (int d : ordinals)
    if (d < 0 || d >= *count)
      return status(errc::invalid_argument, "gpu devices: expected ordinals in [0, " + std::to_string(*count - 1) +
                                                "] (the visible devices), found " + std::to_string(d));

  // Each device's memory budget (key copies and workers' buffers): as configured, or 90% of its
  // free memory now (the rest is for the CUDA context and the kernels' own launch resources). The
  // key budget per slot: as configured, or 80% of the free memory split among the slots that share
  // the device, so that keys alone never crowd the workers' buffers out of the device budget.
  std::map<int, int> per_ordinal;
  std::map<int, uint64_t> free_at_start, memory_limits;
  std::map<int, groth16::gpu_device_info> info;
  for (int d : ordinals) ++per_ordinal[d];
  for (const auto& [d, n] : per_ordinal) {
    auto dev = groth16::gpu_device(d);
    if (!dev) return dev.error();
    free_at_start[d] = dev->free_bytes;
    memory_limits[d] = o.device_memory_budget != 0 ? o.device_memory_budget : dev->free_bytes / 10 * 9;
    info[d] = std::move(dev).value();
  }
  auto sh = std::make_shared<gpu_slots>();
  auto slots = make_device_slots(ordinals, o.key_budget);
  std::string desc;
  for (auto& s : slots) {
    auto st = std::make_unique<gpu_slot_state>();
    // A key is placed on its slot with one worker's buffers beside it (gpu_device_key.cpp), and
    // both come out of the device budget: a key budget above the slot's share of that budget
    // would place a key whose workers then wait for room that never comes (a 24 GiB key budget
    // in a 16 GiB device budget put a 2^26 key's matrices on the device, and no worker fitted).
    const uint64_t share = memory_limits[s.ordinal] / per_ordinal[s.ordinal];
    const bool capped = s.budget > share;
    if (s.budget == 0)
      s.budget = std::min(static_cast<uint64_t>(static_cast<double>(free_at_start[s.ordinal]) * 0.8),
                          memory_limits[s.ordinal]) /
                 per_ordinal[s.ordinal];
    s.budget = std::min(s.budget, share);
    const groth16::gpu_device_info& d = info[s.ordinal];
    st->slot = s;
    st->description = d.description;
    st->stats.name = s.name;
    st->stats.ordinal = s.ordinal;
    st->stats.description = st->description;
    // NVML finds the device by its bus id (gpu_utilization.hpp); without one the slot has no NVML row.
    st->stats.pci_bus_id = d.pci_bus_id;
    desc += (desc.empty() ? "" : ", ") + s.name + "=" + st->description + " key_budget=" + mib(s.budget) +
            (capped ? " (capped at the slot's share of the device budget)" : "") +
            " device_budget=" + mib(memory_limits[s.ordinal]);
    sh->slots.push_back(std::move(st));
  }
  gpu_parts p;
  p.backend = std::make_unique<gpu_backend>(sh, o.workers_per_device, o.synthesis, o.batch_partitions);
  p.devices.slots = std::move(slots);
  p.devices.uploader = std::make_shared<gpu_uploader>(sh, o.synthesis, o.streamed);
  p.devices.memory_limits = std::move(memory_limits);
  p.pinned = std::make_shared<gpu_pinned_allocator>();
  p.description = desc + " workers_per_device=" + std::to_string(o.workers_per_device) +
                  " synthesis=" + groth16::synthesis_place_name(o.synthesis);
  return p;
}

}  // namespace cuzk::engine
