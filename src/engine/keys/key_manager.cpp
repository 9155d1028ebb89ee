// SPDX-License-Identifier: MIT OR Apache-2.0
// Residency of proving keys (see key_manager.hpp).
#include "engine/keys/key_manager.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

namespace cuzk::engine {

namespace {

// How long a waiter sleeps between looks at its cancel token.
constexpr auto wait_step = std::chrono::milliseconds(50);

status cancelled(const std::string& what) { return status(errc::cancelled, "cancelled while " + what); }

// An upper bound of a loaded key's host bytes (see load_estimate()): the mapped file, the
// sections the reader copies (at most the file again, less the coefficients) and the matrices
// built from the coefficients (36 bytes per 44-byte entry, plus two row-start arrays). A private
// copy has every section aligned, so the reader copies nothing; it has up to 19 bytes of padding
// per section (formats::binfile::open_aligned_copy). While the second matrix is built it holds,
// for a moment, its entries twice where merging shrank them and two row indexes of 8 bytes a row
// beside its own (synth/csr_matrix.hpp, build_csr): at most twice the coefficients and 16 bytes a
// row more, which is what the bound for a private copy takes.
uint64_t host_load_bound(const key_summary& k, bool private_copy) {
  const uint64_t row_starts = 16 * (uint64_t{k.domain_size} + 1);
  if (!private_copy || k.sections == 0 || k.coef_bytes == 0) return 2 * k.file_bytes + row_starts;
  return k.file_bytes + 19 * uint64_t{k.sections} + 2 * k.coef_bytes + 2 * row_starts;
}

}  // namespace

void key_lease::release() noexcept {
  if (mgr_ != nullptr) mgr_->release(id_, dev_ ? slot_ : -1);
  mgr_ = nullptr;
  key_.reset();
  dev_.reset();
}

key_manager::key_manager(tier_budgets budgets, host_allocator& alloc, point_check check, device_tier devices,
                         memory_budgets* memory, std::string key_copy_dir)
    : budgets_(budgets),
      alloc_(alloc),
      check_(check),
      copy_dir_(std::move(key_copy_dir)),
      host_budget_(memory != nullptr ? &memory->host() : nullptr),
      devices_(std::move(devices), memory, m_, cv_) {
  if (host_budget_ != nullptr)
    evictor_ = host_budget_->add_evictor("proving keys", evictor_rank::proving_keys,
                                         [this](uint64_t missing) { return shed(missing); });
  // A device copy's pinned points are charged to what the key's mapped file holds first
  // (device_key_tier.hpp): up to the mapping's bytes, lent while the copy lives.
  devices_.set_host_lender(host_lender{
      [this](const std::string& id, uint64_t bytes) {
        auto it = entries_.find(id);
        if (it == entries_.end() || !it->second.key) return reservation();
        entry& e = it->second;
        const uint64_t mapped = e.key->mapped_bytes();
        const uint64_t lendable = mapped > e.lent ? mapped - e.lent : 0;
        reservation r = e.host_res.split(std::min({bytes, lendable, e.host_res.bytes()}));
        e.lent += r.bytes();
        return r;
      },
      [this](const std::string& id, reservation back) {
        auto it = entries_.find(id);
        if (it == entries_.end()) return;  // `back` goes to the budget
        entry& e = it->second;
        e.lent -= std::min(e.lent, back.bytes());
        if (!e.host_res)
          e.host_res = std::move(back);
        else
          (void)e.host_res.absorb(std::move(back));  // same budget
        (void)reconcile_locked(e);  // a key that left the mapping (hot, cold) holds no more than it has
      }});
}

bool key_manager::reconcile_locked(entry& e) {
  if (host_budget_ == nullptr) return true;
  // The part of the mapping lent to device copies is theirs to hold while they live.
  const uint64_t resident = e.key ? e.key->resident_bytes() : 0;
  const uint64_t lent = e.key ? std::min(e.lent, e.key->mapped_bytes()) : 0;
  const uint64_t want = resident - lent;
  const uint64_t held = e.host_res.bytes();
  if (want == 0) {
    e.host_res.reset();
    return true;
  }
  if (want <= held) {
    e.host_res.release(held - want);
    return true;
  }
  // From free room only: this runs under the manager's lock, and evicting would call shed(),
  // which takes it.
  acquire_options o;
  o.timeout = std::chrono::milliseconds(0);
  o.evict = false;
  o.purpose = "a proving key";
  auto more = host_budget_->acquire(want - held, o);
  if (!more) return false;
  if (!e.host_res)
    e.host_res = std::move(more).value();
  else
    (void)e.host_res.absorb(std::move(more).value());  // same budget
  return true;
}

namespace {

// The key this thread's eviction rounds leave alone (key_manager::spared_key), and whose manager.
struct thread_spared {
  const key_manager* manager = nullptr;
  std::string id;
};
thread_local thread_spared spared_here;

}  // namespace

key_manager::spared_key::spared_key(const key_manager& m, std::string id) {
  spared_here = {&m, std::move(id)};
}

key_manager::spared_key::~spared_key() { spared_here = {}; }

uint64_t key_manager::shed(uint64_t missing) {
  uint64_t freed = 0;
  const std::string* spared = spared_here.manager == this ? &spared_here.id : nullptr;
  {
    std::lock_guard lk(m_);
    while (freed < missing) {
      entry* victim = nullptr;
      const std::string* victim_id = nullptr;
      for (auto& [id, e] : entries_)
        if (e.key && !busy_locked(id, e) && (spared == nullptr || id != *spared) &&
            (victim == nullptr || e.use_seq < victim->use_seq)) {
          victim = &e;
          victim_id = &id;
        }
      if (victim == nullptr) break;
      const uint64_t before = victim->host_res.bytes();
      // Down one tier; a key that went hot -> warm is still the least recently used, so the next
      // round takes it cold if more is needed.
      (void)demote_locked(*victim_id, *victim,
                          victim->key->tier() == key_tier::hot ? key_tier::warm : key_tier::cold, {});
      const uint64_t after = victim->host_res.bytes();
      if (before > after) freed += before - after;
    }
  }
  cv_.notify_all();
  return freed;
}

uint64_t key_manager::load_estimate(const std::string& id) const {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  if (it == entries_.end() || it->second.key) return 0;
  return host_load_bound(it->second.summary, !copy_dir_.empty());
}

uint64_t key_manager::host_held(const std::string& id) const {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  return it == entries_.end() ? 0 : it->second.host_res.bytes();
}

uint64_t key_manager::budget(key_tier t) const noexcept {
  switch (t) {
    case key_tier::device:
      return devices_.budget();
    case key_tier::hot:
      return budgets_.hot;
    case key_tier::warm:
      return budgets_.warm;
    case key_tier::cold:
      return UINT64_MAX;
  }
  return 0;
}

std::string key_manager::tier_name(key_tier t) const {
  if (t == key_tier::hot) return std::string("hot(") + alloc_.kind() + ")";
  return key_tier_name(t);
}

bool key_manager::busy_locked(const std::string& id, const entry& e) const noexcept {
  return e.users > 0 || e.loading || devices_.uploading_locked(id);
}

uint64_t key_manager::used_locked(key_tier t, const std::string& except) const {
  uint64_t used = 0;
  for (const auto& [id, e] : entries_)
    if (e.key && e.key->tier() == t && id != except) used += e.key->resident_bytes();
  return used;
}

status key_manager::add(const std::string& id, const std::string& path, const key_summary& summary) {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  if (it != entries_.end() && busy_locked(id, it->second))
    return status(errc::failed_precondition, "circuit " + id + ": its key is in use by " +
                                                 std::to_string(it->second.users) +
                                                 " proof(s); cannot replace it now");
  entry e;
  e.path = path;
  e.summary = summary;
  entries_[id] = std::move(e);
  devices_.add_locked(id);
  return status::ok();
}

status key_manager::remove(const std::string& id) {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return status::ok();
  if (busy_locked(id, it->second))
    return status(errc::failed_precondition, "circuit " + id + ": its key is in use by " +
                                                 std::to_string(it->second.users) + " proof(s)");
  entries_.erase(it);
  devices_.remove_locked(id);
  return status::ok();
}

void key_manager::release(const std::string& id, int slot) noexcept {
  bool copy_unused = false;
  {
    std::lock_guard lk(m_);
    auto it = entries_.find(id);
    if (it != entries_.end() && it->second.users > 0) {
      entry& e = it->second;
      --e.users;
      e.use_seq = ++seq_;
      e.last_use_wall = wall_clock::now();
      if (slot >= 0) copy_unused = devices_.release_locked(id, slot, e.last_use_wall.value());
    }
  }
  cv_.notify_all();
  // The copy can make room now: a worker or an upload waiting for device memory looks again.
  if (copy_unused) devices_.wake(slot);
}

status key_manager::demote_locked(const std::string& id, entry& e, key_tier target, const std::string& except) {
  if (!e.key || e.key->tier() <= target) return status::ok();
  // Whatever happens below, the host budget then holds what the key still holds (less: only
  // releases).
  struct follow {
    key_manager& m;
    entry& e;
    ~follow() { (void)m.reconcile_locked(e); }
  } follow_after{*this, e};
  if (target == key_tier::cold) {
    devices_.drop_all_locked(id);  // a device copy needs its key on the host
    e.key.reset();
    return status::ok();
  }
  // hot -> warm: map the file again (the matrices are shared, nothing is rebuilt). When the warm
  // tier has no room the key goes cold instead. The room is never made by evicting `except`, the
  // key whose promotion to hot asked for this demotion.
  if (!make_room_locked(key_tier::warm, e.key->mapped_bytes() + e.key->owned_bytes(), except)) {
    e.key.reset();
    return status::ok();
  }
  auto warm = loaded_key::make_warm(*e.key);
  if (!warm) {
    e.key.reset();
    return warm.error();
  }
  e.key = std::move(warm).value();
  return status::ok();
}

bool key_manager::make_room_locked(key_tier t, uint64_t bytes, const std::string& except) {
  const uint64_t b = budget(t);
  if (bytes > b) return false;
  while (used_locked(t) + bytes > b) {
    entry* victim = nullptr;
    const std::string* victim_id = nullptr;
    for (auto& [id, e] : entries_)
      if (e.key && e.key->tier() == t && !busy_locked(id, e) && id != except &&
          (victim == nullptr || e.use_seq < victim->use_seq)) {
        victim = &e;
        victim_id = &id;
      }
    if (victim == nullptr) return false;
    // A key moving down from the hot tier keeps its device copies (they do not use the host
    // copy's memory); one leaving the host drops them.
    (void)demote_locked(*victim_id, *victim, t == key_tier::hot ? key_tier::warm : key_tier::cold, except);
  }
  return true;
}

status key_manager::load_locked(std::unique_lock<std::mutex>& lk, const std::string& id,
                                const cancel_token* cancel, reservation* key_charge) {
  entry* e = &entries_.at(id);
  const uint64_t estimate = e->summary.file_bytes;
  if (estimate > budgets_.warm)
    return status(errc::resource_exhausted, "circuit " + id + ": key " + e->path + " is " +
                                                std::to_string(estimate) +
                                                " bytes, more than the whole warm budget of " +
                                                std::to_string(budgets_.warm) + " bytes");
  while (!make_room_locked(key_tier::warm, estimate, id)) {
    if (cancel && cancel->cancelled()) return cancelled("waiting for key memory");
    cv_.wait_for(lk, wait_step);
    auto it = entries_.find(id);
    if (it == entries_.end()) return status(errc::not_found, "circuit " + id + ": removed while waiting");
    e = &it->second;
    if (e->key) return status::ok();  // someone else loaded it meanwhile
  }
  e->loading = true;
  const std::string path = e->path;
  const key_summary summary = e->summary;
  const uint64_t host_estimate = host_load_bound(summary, !copy_dir_.empty());  // load_estimate()
  lk.unlock();
  // The host budget first (without the lock: waiting there may ask shed() for room).
  reservation res;
  if (host_budget_ != nullptr) {
    if (key_charge != nullptr && *key_charge && key_charge->bytes() >= host_estimate) {
      res = key_charge->split(host_estimate);
    } else {
      // Without a charge (a preload) the load waits in line like any request. With a charge too
      // small (the key was resident when its job was admitted and left since), the caller holds
      // memory while it waits, so the wait is bounded: a clear error instead of a standstill with
      // the request ahead of it.
      const bool holding = key_charge != nullptr && *key_charge;
      const std::optional<std::chrono::milliseconds> limit =
          holding ? std::optional<std::chrono::milliseconds>(std::chrono::seconds(60)) : std::nullopt;
      const std::string purpose = "the key of circuit " + id;
      auto r = host_budget_->acquire(host_estimate, {cancel, limit, purpose, true, nullptr});
      if (!r) {
        lk.lock();
        entries_.at(id).loading = false;
        cv_.notify_all();
        return r.error();
      }
      res = std::move(r).value();
    }
  }
  loaded_key::step_done step;
  if (progress_) {
    // The first step (tens of seconds for a key of tens of GiB) is told as it begins too.
    const char* first = copy_dir_.empty() ? "map" : "private copy";
    if (summary.file_bytes > 0) progress_(id, first, 0, summary.file_bytes, 0.0);
    step = [this, &id](const char* what, uint64_t bytes, double seconds) { progress_(id, what, bytes, bytes, seconds); };
  }
  auto k = loaded_key::load_warm(path, summary, check_, copy_dir_, step);
  lk.lock();
  e = &entries_.at(id);  // entries are not removed while loading
  e->loading = false;
  cv_.notify_all();
  if (!k) return k.error();
  e->key = std::move(k).value();
  e->host_res = std::move(res);
  if (!reconcile_locked(*e)) {
    const uint64_t need = e->key->resident_bytes();
    e->key.reset();
    e->host_res.reset();
    return status(errc::resource_exhausted,
                  "circuit " + id + ": key " + e->path + " holds " + describe_bytes(need) +
                      " of host memory once loaded, more than the " + describe_bytes(host_estimate) +
                      " admitted, and the host budget has no room for the rest");
  }
  ++e->loads;
  e->use_seq = ++seq_;
  // Enforce the budget again with the measured size (matrices included).
  (void)make_room_locked(key_tier::warm, 0, id);
  return status::ok();
}

status key_manager::promote_hot_locked(entry& e, const std::string& id, bool required) {
  if (!e.key || e.key->tier() >= key_tier::hot) return status::ok();
  const uint64_t need = e.key->hot_bytes();
  if (!make_room_locked(key_tier::hot, need, id)) {
    if (!required) return status::ok();
    return status(errc::resource_exhausted,
                  "circuit " + id + ": the hot tier cannot take key " + e.path + " (" + std::to_string(need) +
                      " bytes; budget " + std::to_string(budgets_.hot) + ", " +
                      std::to_string(used_locked(key_tier::hot)) + " used by keys in use)");
  }
  // The hot copy is made beside the mapping, so both are held for a moment; from free room only
  // (the lock is held), and a promotion nobody required is skipped without it.
  reservation extra;
  if (host_budget_ != nullptr) {
    acquire_options o;
    o.timeout = std::chrono::milliseconds(0);
    o.evict = false;
    o.purpose = "a hot copy of a proving key";
    auto r = host_budget_->acquire(need, o);
    if (!r) {
      if (!required) return status::ok();
      return status(errc::resource_exhausted,
                    "circuit " + id + ": the host memory budget has no room for the hot copy of key " +
                        e.path + " (" + describe_bytes(need) + "): " + r.error().message());
    }
    extra = std::move(r).value();
  }
  copy_progress progress;
  const auto t0 = std::chrono::steady_clock::now();
  if (progress_)
    progress = [this, &id, t0](uint64_t done, uint64_t total) {
      progress_(id, "hot copy", done, total, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    };
  auto hot = loaded_key::make_hot(*e.key, alloc_, progress);
  if (!hot) return hot.error();
  e.key = std::move(hot).value();
  if (host_budget_ != nullptr) {
    if (!e.host_res)
      e.host_res = std::move(extra);
    else
      (void)e.host_res.absorb(std::move(extra));  // same budget
    (void)reconcile_locked(e);                     // down to the hot key's size: only releases
  }
  return status::ok();
}

result<std::shared_ptr<const loaded_key>> key_manager::host_copy_locked(const std::string& id,
                                                                      const std::string& slot) const {
  auto it = entries_.find(id);
  if (it == entries_.end()) return status(errc::not_found, "circuit " + id + ": removed while waiting");
  if (!it->second.key) return status(errc::internal, "circuit " + id + ": not on the host, cannot go to " + slot);
  return it->second.key;
}

status key_manager::upload_locked(std::unique_lock<std::mutex>& lk, const std::string& id, int slot,
                                  const cancel_token* cancel) {
  const std::string& where = devices_.slots()[slot].name;
  const bool had = devices_.on_slot_locked(id, slot);
  const auto t0 = std::chrono::steady_clock::now();
  status s = devices_.upload_locked(lk, id, slot, cancel, [&] { return host_copy_locked(id, where); });
  // An upload that made the copy is a step of the key's load like the others, with its seconds.
  if (s && !had && progress_ && devices_.on_slot_locked(id, slot)) {
    uint64_t bytes = 0;
    std::string placement;
    for (const auto& c : devices_.copies_locked(id))
      if (c.slot == where) {
        bytes = c.bytes;
        placement = c.placement;
      }
    // The placement in the step's name: the one line of the log that says how the budget laid the
    // key out (which vectors stream, B2 beside or in turn), which a job's times depend on.
    const std::string what = "upload to " + where + (placement.empty() ? "" : " (" + placement + ")");
    progress_(id, what.c_str(), bytes, bytes,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return s;
}

result<key_lease> key_manager::acquire(const std::string& id, const cancel_token* cancel, double* load_seconds,
                                       int slot, reservation* key_charge) {
  const auto t0 = std::chrono::steady_clock::now();
  if (slot >= static_cast<int>(devices_.slots().size()))
    return status(errc::invalid_argument, "key_manager: slot " + std::to_string(slot) + ": expected one of the " +
                                              std::to_string(devices_.slots().size()) + " device slots");
  status note = status::ok();
  bool tried_device = slot < 0;
  std::unique_lock lk(m_);
  for (;;) {
    auto it = entries_.find(id);
    if (it == entries_.end()) return status(errc::not_found, "circuit " + id + ": no such key registered");
    entry& e = it->second;
    if (e.loading) {
      if (cancel && cancel->cancelled()) return cancelled("the key loaded");
      cv_.wait_for(lk, wait_step);
      continue;
    }
    if (!e.key) {
      CUZK_TRY(load_locked(lk, id, cancel, key_charge));
      continue;
    }
    if (budgets_.hot > 0) CUZK_TRY(promote_hot_locked(e, id, false));
    if (!tried_device && !devices_.on_slot_locked(id, slot)) {
      tried_device = true;
      const status up = upload_locked(lk, id, slot, cancel);
      if (!up && cancel && cancel->cancelled()) return up;
      if (!up) note = up;
      continue;  // the lock was released: look again
    }
    std::shared_ptr<const device_key> dev = slot >= 0 ? devices_.use_locked(id, slot) : nullptr;
    if (dev) note = status::ok();
    ++e.users;
    e.use_seq = ++seq_;
    e.last_use_wall = wall_clock::now();
    if (load_seconds)
      *load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return key_lease(this, id, e.key, slot, std::move(dev), std::move(note));
  }
}

result<tier_target> key_manager::parse_target(const std::string& name) const {
  for (int t = 0; t < 4; ++t)
    if (name == key_tier_name(static_cast<key_tier>(t))) return tier_target(static_cast<key_tier>(t));
  std::string names = "cold, warm, hot, device";
  for (std::size_t k = 0; k < devices_.slots().size(); ++k) {
    names += ", " + devices_.slots()[k].name;
    if (name == devices_.slots()[k].name) return tier_target(key_tier::device, static_cast<int>(k));
  }
  return status(errc::invalid_argument, "tier: expected one of " + names + ", found \"" + name + "\"");
}

status key_manager::preload(const std::string& id, tier_target target) {
  if (target.tier == key_tier::device && !devices_.present())
    return status(errc::unsupported, "circuit " + id +
                                         ": no device tier (the engine proves on the CPU, or has no device "
                                         "slots)");
  if (target.slot >= static_cast<int>(devices_.slots().size()))
    return status(errc::invalid_argument, "preload: slot " + std::to_string(target.slot) + " does not exist");
  if (target.tier == key_tier::cold) return status::ok();
  std::unique_lock lk(m_);
  for (;;) {
    auto it = entries_.find(id);
    if (it == entries_.end()) return status(errc::not_found, "circuit " + id + ": no such key registered");
    entry& e = it->second;
    if (e.loading) {
      cv_.wait_for(lk, wait_step);
      continue;
    }
    if (!e.key) {
      CUZK_TRY(load_locked(lk, id, nullptr, nullptr));
      continue;
    }
    if (target.tier == key_tier::hot) CUZK_TRY(promote_hot_locked(e, id, true));
    if (target.tier == key_tier::device && budgets_.hot > 0) CUZK_TRY(promote_hot_locked(e, id, false));
    e.use_seq = ++seq_;
    if (target.tier != key_tier::device) return status::ok();
    const int first = target.slot < 0 ? 0 : target.slot;
    const int last = target.slot < 0 ? static_cast<int>(devices_.slots().size()) - 1 : target.slot;
    for (int k = first; k <= last; ++k) CUZK_TRY(upload_locked(lk, id, k, nullptr));
    // Each upload released the lock: the key may have left the host meanwhile (then load again).
    auto again = entries_.find(id);
    if (again == entries_.end() || !again->second.key) continue;
    bool all = true;
    for (int k = first; k <= last; ++k) all = all && devices_.on_slot_locked(id, k);
    if (all) return status::ok();
  }
}

status key_manager::evict(const std::string& id, tier_target target) {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return status(errc::not_found, "circuit " + id + ": no such key registered");
  entry& e = it->second;
  if (target.tier == key_tier::device) {
    if (target.slot < 0) return status::ok();  // every copy may stay where it is
    return devices_.drop_locked(id, target.slot);
  }
  if (busy_locked(id, e))
    return status(errc::failed_precondition, "circuit " + id + ": key in use by " + std::to_string(e.users) +
                                                 " proof(s); evict it when they finish");
  devices_.drop_all_locked(id);  // below the device tier
  return demote_locked(id, e, target.tier, id);
}

bool key_manager::resident(const std::string& id) const {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  return it != entries_.end() && it->second.key != nullptr;
}

bool key_manager::resident_on(const std::string& id, int slot) const {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  return it != entries_.end() && devices_.on_slot_locked(id, slot);
}

std::vector<key_entry_status> key_manager::entries() const {
  std::lock_guard lk(m_);
  std::vector<key_entry_status> out;
  for (const auto& [id, e] : entries_) {
    key_entry_status s;
    s.circuit = id;
    s.path = e.path;
    const key_tier host = e.key ? e.key->tier() : key_tier::cold;
    s.host_tier_name = tier_name(host);
    s.tier = host;
    s.tier_name = s.host_tier_name;
    std::string on;
    s.devices = devices_.copies_locked(id);
    for (const auto& c : s.devices) {
      s.device_bytes += c.bytes;
      if (c.resident) on += (on.empty() ? "" : ",") + c.slot;
    }
    if (!on.empty()) {
      s.tier = key_tier::device;
      s.tier_name = on;
    }
    s.file_bytes = e.summary.file_bytes;
    s.mapped_bytes = e.key ? e.key->mapped_bytes() : 0;
    s.owned_bytes = e.key ? e.key->owned_bytes() : 0;
    s.users = e.users;
    s.loading = e.loading;
    s.last_use = e.last_use_wall;
    s.loads = e.loads;
    out.push_back(std::move(s));
  }
  return out;
}

std::array<key_tier_status, 4> key_manager::tiers() const {
  std::lock_guard lk(m_);
  std::array<key_tier_status, 4> out;
  for (int i = 0; i < 4; ++i) {
    const auto t = static_cast<key_tier>(i);
    auto& s = out[i];
    s.tier = t;
    s.name = tier_name(t);
    s.budget = t == key_tier::cold ? 0 : budget(t);
    s.present = t == key_tier::cold || t == key_tier::warm || (t == key_tier::hot && budgets_.hot > 0) ||
                (t == key_tier::device && devices_.present());
  }
  for (const auto& [id, e] : entries_) {
    const key_tier host = e.key ? e.key->tier() : key_tier::cold;
    auto& h = out[static_cast<int>(host)];
    ++h.keys;
    if (e.key) h.used += e.key->resident_bytes();
  }
  out[static_cast<int>(key_tier::device)].used = devices_.used_locked();
  out[static_cast<int>(key_tier::device)].keys = devices_.keys_locked();
  return out;
}

std::vector<key_slot_status> key_manager::slots() const {
  std::lock_guard lk(m_);
  return devices_.slots_locked();
}

}  // namespace cuzk::engine
