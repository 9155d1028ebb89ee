// The GPU backend, its device uploader and its pinned allocator (see gpu_prover_backend.hpp).
#include "engine/gpu_prover_backend.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <set>
#include <thread>
#include <map>
#include <mutex>
#include <optional>
#include <variant>
#include <vector>

#include "engine/cpu_prover_backend.hpp"
#include "engine/timeline.hpp"
#include "gpu/field_batch.hpp"
#include "gpu/groth16/gpu_prover.hpp"
#include "gpu/groth16/gpu_proving_key.hpp"
#include "gpu/groth16/gpu_workspace.hpp"
#include "groth16/os_random.hpp"

namespace cuzk::engine {

namespace {

// One slot: its kernel lock (shared by every key uploaded to it) and what it has done.
struct slot_state {
  device_slot slot;
  std::string description;
  std::shared_ptr<std::mutex> kernel_lock = std::make_shared<std::mutex>();
  mutable std::mutex m;  // the counters
  device_activity stats;
};

// What the backend and the uploader share.
struct gpu_shared {
  std::vector<std::unique_ptr<slot_state>> slots;
  // Device allocations on one physical device, one at a time (made up front: never inserted into
  // after construction, so lookups need no lock).
  std::map<int, std::unique_ptr<std::mutex>> alloc_locks;
  std::mutex& alloc_lock(int ordinal) const { return *alloc_locks.at(ordinal); }
};

class gpu_device_key final : public device_key {
 public:
  explicit gpu_device_key(gpu::gpu_proving_key<bn254> k) : key(std::move(k)) {}
  explicit gpu_device_key(gpu::gpu_proving_key<bls12_381> k) : key(std::move(k)) {}
  uint64_t bytes() const noexcept override {
    return std::visit([](const auto& k) -> uint64_t { return k.resident_bytes(); }, key);
  }
  std::variant<gpu::gpu_proving_key<bn254>, gpu::gpu_proving_key<bls12_381>> key;
};

template <class Fr>
uint64_t csr_bytes(const synth::csr_matrix<Fr>& m) {
  return m.row_start.size() * sizeof(uint64_t) + m.col.size() * sizeof(uint32_t) + m.value.size() * sizeof(Fr);
}

// The points, the NTT twiddles and the matrices A and B (synthesis on the device).
template <class C>
uint64_t known_device_bytes(const key_material<C>& m) {
  const auto& v = m.view;
  const uint64_t points = (v.a.size() + v.b1.size() + v.c.size() + v.h.size()) * sizeof(g1_affine<C>) +
                          v.b2.size() * sizeof(g2_affine<C>);
  const uint64_t twiddles = gpu::ntt_plan<typename C::fr>::device_bytes(
      static_cast<unsigned>(std::countr_zero(uint64_t{v.domain_size})), gpu::prover_ntt_tables);
  return points + twiddles + csr_bytes(m.matrices->a) + csr_bytes(m.matrices->b);
}

class gpu_uploader final : public device_uploader {
 public:
  gpu_uploader(std::shared_ptr<gpu_shared> sh, gpu::synthesis_place place) : sh_(std::move(sh)), place_(place) {}

  // What is known from the sizes; the MSM scratch is known only once it is allocated (measured
  // after).
  uint64_t estimate_bytes(const loaded_key& key) const override {
    if (const auto* m = key.get<bn254>()) return known_device_bytes(*m);
    return known_device_bytes(*key.get<bls12_381>());
  }

  result<std::shared_ptr<const device_key>> upload(const loaded_key& key, int slot,
                                                   const device_slot& where) override {
    if (slot < 0 || static_cast<std::size_t>(slot) >= sh_->slots.size())
      return status(errc::invalid_argument, "gpu uploader: no slot " + std::to_string(slot));
    gpu::gpu_key_options o;
    o.synthesis = place_;
    o.kernel_lock = sh_->slots[slot]->kernel_lock;
    o.workspace = gpu::key_workspace::none;
    o.scratch = gpu::key_scratch::at_creation;
    std::lock_guard alloc(sh_->alloc_lock(where.ordinal));
    if (const auto* m = key.get<bn254>()) return make<bn254>(*m, where.ordinal, std::move(o));
    return make<bls12_381>(*key.get<bls12_381>(), where.ordinal, std::move(o));
  }

 private:
  template <class C>
  static result<std::shared_ptr<const device_key>> make(const key_material<C>& m, int ordinal,
                                                        gpu::gpu_key_options o) {
    auto k = gpu::gpu_proving_key<C>::create(m.view, ordinal, std::move(o));
    if (!k) return k.error();
    return std::shared_ptr<const device_key>(std::make_shared<gpu_device_key>(std::move(k).value()));
  }

  std::shared_ptr<gpu_shared> sh_;
  gpu::synthesis_place place_;
};

// cudaHostAlloc'd blocks, usable from every device (the hot tier on a GPU machine).
class pinned_allocator final : public host_allocator {
 public:
  const char* kind() const noexcept override { return "pinned"; }
  result<host_block> allocate(std::size_t bytes) override {
    void* p = nullptr;
    if (bytes != 0) CUZK_CUDA_TRY(cudaHostAlloc(&p, bytes, cudaHostAllocPortable));
    return host_block(p, bytes, [](void* q) { (void)cudaFreeHost(q); });
  }
};

// The pinned staging of one proof: the witness first, then (synthesis on the host into pinned
// memory) a | b | c at a page boundary.
struct staging_layout {
  uint64_t witness_bytes = 0, abc_offset = 0, abc_bytes = 0;
  uint64_t total() const noexcept { return abc_bytes != 0 ? abc_offset + abc_bytes : witness_bytes; }
};

staging_layout staging_for(uint64_t n_vars, uint64_t domain_size, gpu::synthesis_place place) {
  constexpr uint64_t scalar = 32, page = 4096;
  staging_layout l;
  l.witness_bytes = n_vars * scalar;
  if (place == gpu::synthesis_place::host_pinned) {
    l.abc_offset = (l.witness_bytes + page - 1) / page * page;
    l.abc_bytes = 3 * domain_size * scalar;
  }
  return l;
}

class gpu_backend final : public prover_backend {
 public:
  gpu_backend(std::shared_ptr<gpu_shared> sh, unsigned workers_per_device, gpu::synthesis_place place)
      : sh_(std::move(sh)), place_(place) {
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
                          backend_timings& t) override {
    if (call.worker < 0 || static_cast<std::size_t>(call.worker) >= workers_.size())
      return status(errc::invalid_argument, "gpu backend: worker " + std::to_string(call.worker) +
                                                ": expected one of " + std::to_string(workers_.size()));
    worker_state& w = *workers_[call.worker];
    slot_state& sl = *sh_->slots[w.slot];
    if (call.on_device == nullptr) {
      {
        std::lock_guard lk(sl.m);
        ++sl.stats.cpu_fallbacks;
      }
      return cpu_.prove(call, witness, cancel, t);
    }
    if (call.slot != w.slot)
      return status(errc::internal, "gpu backend: worker " + std::to_string(call.worker) + " serves " +
                                        sl.slot.name + ", its key copy is for slot " + std::to_string(call.slot));
    const auto& dk = static_cast<const gpu_device_key&>(*call.on_device);
    // The worker's buffers are its own while it proves: the evictor of idle buffers passes it by.
    claim c(w, budget_of(sl.slot.ordinal));
    if (const auto* m = call.key.get<bn254>()) return prove_on<bn254>(call, w, sl, *m, dk, witness, cancel, t);
    return prove_on<bls12_381>(call, w, sl, *call.key.get<bls12_381>(), dk, witness, cancel, t);
  }

  // The witness as read (pageable), its pinned staging, and a | b | c on the host when synthesis
  // runs there (pinned, from the pool; or pageable in the workspace, the measuring switch). A key
  // without a device copy is proved by the CPU backend, which needs less than the sum of both.
  proof_memory memory_per_proof(const key_summary& k) const override {
    constexpr uint64_t scalar = 32;
    const staging_layout l = staging_for(k.n_vars, k.domain_size, place_);
    const uint64_t pageable_abc = place_ == gpu::synthesis_place::host_pageable ? 3 * uint64_t{k.domain_size} * scalar : 0;
    const uint64_t gpu_host = uint64_t{k.n_vars} * scalar + l.total() + pageable_abc;
    return {std::max(gpu_host, cpu_.memory_per_proof(k).host), l.total()};
  }

  std::vector<device_activity> activity() const override {
    std::vector<device_activity> out;
    for (std::size_t k = 0; k < sh_->slots.size(); ++k) {
      const slot_state& sl = *sh_->slots[k];
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
    // Set while the worker proves, or while the evictor frees its buffers: whoever sets it owns bn,
    // bls and device_mem until it clears it.
    std::atomic<bool> claimed{false};
    std::unique_ptr<gpu::gpu_workspace<bn254>> bn;
    std::unique_ptr<gpu::gpu_workspace<bls12_381>> bls;
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
    std::unique_ptr<gpu::gpu_workspace<C>>& workspace() {
      if constexpr (std::is_same_v<C, bn254>)
        return bn;
      else
        return bls;
    }
  };

  // Holds a worker's claim for one proof; at its end the worker's buffers are idle, so whoever
  // waits for device memory looks again.
  struct claim {
    worker_state& w;
    memory_budget* budget;
    claim(worker_state& ws, memory_budget* b) : w(ws), budget(b) {
      while (w.claimed.exchange(true)) std::this_thread::yield();  // the evictor holds it briefly
    }
    ~claim() {
      w.claimed.store(false);
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
      slot_state& sl = *sh_->slots[w.slot];
      if (sl.slot.ordinal != ordinal || w.claimed.exchange(true)) continue;
      if (w.bn || w.bls) {
        {
          // Not inside another allocation's cudaMemGetInfo window (a key's measured size).
          std::lock_guard alloc(sh_->alloc_lock(ordinal));
          int current = -1;
          (void)cudaGetDevice(&current);
          w.bn.reset();  // the workspaces make their own device current to free
          w.bls.reset();
          if (current >= 0) (void)cudaSetDevice(current);
        }
        freed += w.device_mem.bytes();
        w.device_mem.reset();
        std::lock_guard lk(sl.m);
        w.pinned_bytes = w.device_bytes = 0;
        ++w.evictions;
      }
      w.claimed.store(false);
    }
    return freed;
  }

  // The device bytes the worker's buffers will hold for this proof, reserved before they are
  // allocated (waiting in the budget's line, at most device_memory_timeout).
  template <class C>
  status reserve_device_buffers(worker_state& w, slot_state& sl, std::size_t n_vars, std::size_t domain,
                                const cancel_token& cancel, backend_timings& t) {
    memory_budget* b = budget_of(sl.slot.ordinal);
    if (b == nullptr) return status::ok();
    const auto& ws = w.workspace<C>();
    const uint64_t want = w.workspace_device_bytes() - ws->device_bytes() + ws->device_bytes_after(n_vars, domain);
    const uint64_t held = w.device_mem.bytes();
    if (want <= held) return status::ok();
    const auto t0 = std::chrono::steady_clock::now();
    const std::string purpose = "the proof buffers of a worker of " + sl.slot.name;
    auto more = b->acquire(want - held, {&cancel, device_memory_timeout, purpose, true, nullptr});
    t.device_memory_wait += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!more) return more.error();
    if (!w.device_mem) {
      w.device_mem = std::move(more).value();
      return status::ok();
    }
    return w.device_mem.absorb(std::move(more).value());
  }

  template <class C>
  result<any_proof> prove_on(const prove_call& call, worker_state& w, slot_state& sl, const key_material<C>& m,
                             const gpu_device_key& dk, const any_witness& witness, const cancel_token& cancel,
                             backend_timings& t) {
    using fr = typename C::fr;
    if (witness.curve != formats::curve_id_of<C>)
      return status(errc::invalid_argument,
                    std::string("witness: expected ") + C::name + " values for a " + C::name + " key");
    const auto* gk = std::get_if<gpu::gpu_proving_key<C>>(&dk.key);
    if (gk == nullptr) return status(errc::internal, "gpu backend: the device copy is of the other curve");
    const int ordinal = sl.slot.ordinal;
    auto& ws = w.workspace<C>();
    // The staging from the pool, charged to the job's working set; lent to the workspace for this
    // proof only (the lease goes back to the pool once the copies have read it).
    pinned_lease staging;
    struct unlend {
      std::unique_ptr<gpu::gpu_workspace<C>>& ws;
      ~unlend() {
        if (ws) ws->unlend_host();
      }
    } unlend_at_exit{ws};
    const gpu::synthesis_place place = gk->synthesis();
    const bool pooled = call.pinned != nullptr && place != gpu::synthesis_place::host_pageable;
    const staging_layout l = staging_for(m.view.n_vars, m.view.domain_size, place);
    if (pooled) {
      auto lease = call.pinned->acquire(std::string(call.circuit), l.total(), call.working_set);
      if (!lease) return lease.error().with_context(sl.slot.name + ": pinned staging");
      staging = std::move(lease).value();
      t.pinned_fallback = !staging.pinned();
    }
    if (!ws) {
      std::lock_guard alloc(sh_->alloc_lock(ordinal));
      auto made = gpu::gpu_workspace<C>::create(ordinal);  // streams and events, no buffers yet
      if (!made) return made.error();
      ws = std::make_unique<gpu::gpu_workspace<C>>(std::move(made).value());
    }
    if (const status r = reserve_device_buffers<C>(w, sl, m.view.n_vars, m.view.domain_size, cancel, t); !r)
      return r.with_context(sl.slot.name + ": device memory");
    {
      // Allocates only on the worker's first proof of this curve or of a larger circuit (or after
      // the evictor freed its buffers).
      std::lock_guard alloc(sh_->alloc_lock(ordinal));
      CUZK_CUDA_TRY(cudaSetDevice(ordinal));
      const uint64_t before = w.workspace_allocations();
      if (pooled) {
        using repr = typename fr::repr;
        // Back to the pool as soon as the copies have read it (gpu_workspace::lend_host), so the
        // next proof's synthesis can fill it while this one waits for the device.
        ws->lend_host(staging.as<repr>(), l.witness_bytes / sizeof(repr),
                      l.abc_bytes != 0 ? reinterpret_cast<fr*>(staging.data() + l.abc_offset) : nullptr,
                      l.abc_bytes / sizeof(fr), [&staging] { staging.reset(); });
      }
      const status grown = ws->reserve(m.view.n_vars, m.view.domain_size, place);
      // The reservation follows what the buffers hold (less than reserved when a growth failed).
      const uint64_t holds = w.workspace_device_bytes();
      if (w.device_mem.bytes() > holds) w.device_mem.release(w.device_mem.bytes() - holds);
      const uint64_t after = w.workspace_allocations();
      if (after != before) {
        std::lock_guard lk(sl.m);
        w.pinned_bytes = w.over_workspaces([](const auto& each) { return each.pinned_bytes(); });
        w.device_bytes = holds;
        w.allocations = after;
      }
      CUZK_TRY(grown);
    }
    const fr r = groth16::os_random_scalar<fr>(), s = groth16::os_random_scalar<fr>();
    gpu::gpu_phase_timings g;
    auto p = gpu::gpu_prove<C>(*gk, *ws, m.view, std::span<const typename fr::repr>(witness.values), r, s, &g);
    const double front_ms = g.witness_ms + g.synthesis_ms;
    t.synthesis = front_ms / 1e3;
    t.prove = (g.total_ms - front_ms) / 1e3;
    t.h2d = g.h2d_ms / 1e3;
    t.h2d_bytes = g.h2d_bytes;
    t.ntt = g.ntt_ms / 1e3;
    t.msm_a = g.msm_a_ms / 1e3;
    t.msm_b1 = g.msm_b1_ms / 1e3;
    t.msm_b2 = g.msm_b2_ms / 1e3;
    t.msm_c = g.msm_c_ms / 1e3;
    t.msm_h = g.msm_h_ms / 1e3;
    t.assembly = g.assembly_ms / 1e3;
    t.gpu_wait = g.lock_wait_ms / 1e3;
    t.gpu_busy = g.lock_held_ms / 1e3;
    t.ran_on = sl.slot.name;
    // The host clock's spans on the wall clock the timeline uses, from one reading of each.
    const int64_t wall_minus_steady =
        now_unix_us() - std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::steady_clock::now().time_since_epoch())
                            .count();
    auto wall_us = [&](std::chrono::steady_clock::time_point tp) {
      return wall_minus_steady +
             std::chrono::duration_cast<std::chrono::microseconds>(tp.time_since_epoch()).count();
    };
    for (const auto& sp : g.lock_spans)
      t.kernel_spans.push_back({sp.name, wall_us(sp.begin), wall_us(sp.end), sp.held});
    if (!p) return p.error().with_context(sl.slot.name);
    {
      std::lock_guard lk(sl.m);
      ++sl.stats.proofs;
      sl.stats.busy_s += t.gpu_busy;
      sl.stats.wait_s += t.gpu_wait;
      sl.stats.h2d_bytes += t.h2d_bytes;
      sl.stats.h2d_s += t.h2d;
    }
    return any_proof(std::move(p).value());
  }

  // A worker waits this long for device memory for its buffers: it holds its key's copy meanwhile,
  // so a wait that long means the device's budget cannot hold the key and the buffers together.
  static constexpr std::chrono::milliseconds device_memory_timeout{std::chrono::seconds(60)};

  std::shared_ptr<gpu_shared> sh_;
  gpu::synthesis_place place_;
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
  std::optional<gpu::synthesis_place> place;
  for (const auto p : {gpu::synthesis_place::device, gpu::synthesis_place::host_pinned,
                       gpu::synthesis_place::host_pageable})
    if (o.synthesis == gpu::synthesis_place_name(p)) place = p;
  if (!place)
    return status(errc::invalid_argument,
                  "gpu: synthesis: expected device, host-pinned or host-pageable, found \"" + o.synthesis + "\"");
  auto count = gpu::device_count();
  if (!count) return status(errc::unsupported, "no usable CUDA device: " + count.error().to_string());
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
  for (int d : ordinals) ++per_ordinal[d];
  for (const auto& [d, n] : per_ordinal) {
    std::size_t free_b = 0, total_b = 0;
    CUZK_CUDA_TRY(cudaSetDevice(d));
    CUZK_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    free_at_start[d] = free_b;
    memory_limits[d] = o.device_memory_budget != 0 ? o.device_memory_budget : free_b / 10 * 9;
  }
  auto sh = std::make_shared<gpu_shared>();
  auto slots = make_device_slots(ordinals, o.key_budget);
  std::string desc;
  for (auto& s : slots) {
    auto st = std::make_unique<slot_state>();
    if (!sh->alloc_locks.count(s.ordinal)) sh->alloc_locks[s.ordinal] = std::make_unique<std::mutex>();
    if (s.budget == 0)
      s.budget = std::min(static_cast<uint64_t>(static_cast<double>(free_at_start[s.ordinal]) * 0.8),
                          memory_limits[s.ordinal]) /
                 per_ordinal[s.ordinal];
    auto d = gpu::device_description(s.ordinal);
    st->slot = s;
    st->description = d ? *d : "CUDA device " + std::to_string(s.ordinal);
    st->stats.name = s.name;
    st->stats.ordinal = s.ordinal;
    st->stats.description = st->description;
    // NVML finds the device by its bus id (gpu_utilization.hpp); without one the slot has no NVML row.
    std::array<char, 32> bus{};
    if (cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), s.ordinal) == cudaSuccess)
      st->stats.pci_bus_id = bus.data();
    desc += (desc.empty() ? "" : ", ") + s.name + "=" + st->description + " key_budget=" + mib(s.budget) +
            " device_budget=" + mib(memory_limits[s.ordinal]);
    sh->slots.push_back(std::move(st));
  }
  gpu_parts p;
  p.backend = std::make_unique<gpu_backend>(sh, o.workers_per_device, *place);
  p.devices.slots = std::move(slots);
  p.devices.uploader = std::make_shared<gpu_uploader>(sh, *place);
  p.devices.memory_limits = std::move(memory_limits);
  p.pinned = std::make_shared<pinned_allocator>();
  p.description = desc + " workers_per_device=" + std::to_string(o.workers_per_device) + " synthesis=" + o.synthesis;
  return p;
}

}  // namespace cuzk::engine
