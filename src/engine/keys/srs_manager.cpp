// Residency of proving keys (see srs_manager.hpp).
#include "engine/keys/srs_manager.hpp"

#include <chrono>
#include <optional>
#include <set>

namespace cuzk::engine {

namespace {

// How long a waiter sleeps between looks at its cancel token.
constexpr auto wait_step = std::chrono::milliseconds(50);

status cancelled(const std::string& what) { return status(errc::cancelled, "cancelled while " + what); }

// An upper bound of a loaded key's host bytes (see load_estimate()): the mapped file, the
// sections the reader copies (at most the file again, less the coefficients) and the matrices
// built from the coefficients (36 bytes per 44-byte entry, plus two row-start arrays).
uint64_t host_load_bound(const key_summary& k) {
  return 2 * k.file_bytes + 16 * (uint64_t{k.domain_size} + 1);
}

}  // namespace

void key_lease::release() noexcept {
  if (mgr_ != nullptr) mgr_->release(id_, dev_ ? slot_ : -1);
  mgr_ = nullptr;
  key_.reset();
  dev_.reset();
}

srs_manager::srs_manager(tier_budgets budgets, host_allocator& alloc, point_check check, device_tier devices,
                         memory_budgets* memory)
    : budgets_(budgets),
      alloc_(alloc),
      check_(check),
      devices_(std::move(devices)),
      memory_(memory),
      host_budget_(memory != nullptr ? &memory->host() : nullptr) {
  if (host_budget_ != nullptr)
    evictor_ = host_budget_->add_evictor("proving keys", evictor_rank::proving_keys,
                                         [this](uint64_t missing) { return shed(missing); });
  if (memory_ == nullptr) return;
  std::set<int> ordinals;
  for (const auto& sl : devices_.slots) ordinals.insert(sl.ordinal);
  for (int o : ordinals)
    if (auto* b = memory_->device(o))
      device_evictors_.push_back(b->add_evictor("proving key copies", evictor_rank::proving_keys,
                                                [this, o](uint64_t missing) { return shed_device(o, missing); }));
}

memory_budget* srs_manager::device_budget(int slot) const noexcept {
  if (memory_ == nullptr || slot < 0 || static_cast<std::size_t>(slot) >= devices_.slots.size()) return nullptr;
  return memory_->device(devices_.slots[slot].ordinal);
}

srs_manager::device_copy* srs_manager::least_recent_idle_copy_locked(
    const std::function<bool(int slot, const std::string& id)>& eligible) {
  device_copy* victim = nullptr;
  for (auto& [id, e] : entries_)
    for (std::size_t k = 0; k < e.dev.size(); ++k) {
      device_copy& d = e.dev[k];
      if (d.key && d.users == 0 && !d.uploading && eligible(static_cast<int>(k), id) &&
          (victim == nullptr || d.use_seq < victim->use_seq))
        victim = &d;
    }
  return victim;
}

void srs_manager::drop_copy(device_copy& d) noexcept {
  d.key.reset();  // nobody else holds it when nobody uses it: the device memory is free now
  d.mem.reset();
}

uint64_t srs_manager::shed_device(int ordinal, uint64_t missing) {
  uint64_t freed = 0;
  {
    std::lock_guard lk(m_);
    while (freed < missing) {
      device_copy* victim = least_recent_idle_copy_locked(
          [&](int slot, const std::string&) { return devices_.slots[slot].ordinal == ordinal; });
      if (victim == nullptr) break;
      freed += victim->mem.bytes();
      drop_copy(*victim);
    }
  }
  cv_.notify_all();
  return freed;
}

bool srs_manager::reconcile_locked(entry& e) {
  if (host_budget_ == nullptr) return true;
  const uint64_t want = e.key ? e.key->resident_bytes() : 0;
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

uint64_t srs_manager::shed(uint64_t missing) {
  uint64_t freed = 0;
  {
    std::lock_guard lk(m_);
    while (freed < missing) {
      entry* victim = nullptr;
      for (auto& [id, e] : entries_)
        if (e.key && !busy(e) && (victim == nullptr || e.use_seq < victim->use_seq)) victim = &e;
      if (victim == nullptr) break;
      const uint64_t before = victim->host_res.bytes();
      // Down one tier; a key that went hot -> warm is still the least recently used, so the next
      // round takes it cold if more is needed.
      (void)demote_locked(*victim, victim->key->tier() == key_tier::hot ? key_tier::warm : key_tier::cold, {});
      const uint64_t after = victim->host_res.bytes();
      if (before > after) freed += before - after;
    }
  }
  cv_.notify_all();
  return freed;
}

uint64_t srs_manager::load_estimate(const std::string& id) const {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  if (it == entries_.end() || it->second.key) return 0;
  return host_load_bound(it->second.summary);
}

uint64_t srs_manager::budget(key_tier t) const noexcept {
  switch (t) {
    case key_tier::device: {
      uint64_t sum = 0;
      for (const auto& s : devices_.slots) sum += s.budget;
      return sum;
    }
    case key_tier::hot:
      return budgets_.hot;
    case key_tier::warm:
      return budgets_.warm;
    case key_tier::cold:
      return UINT64_MAX;
  }
  return 0;
}

std::string srs_manager::tier_name(key_tier t) const {
  if (t == key_tier::hot) return std::string("hot(") + alloc_.kind() + ")";
  return key_tier_name(t);
}

bool srs_manager::busy(const entry& e) noexcept {
  if (e.users > 0 || e.loading) return true;
  for (const auto& d : e.dev)
    if (d.uploading) return true;
  return false;
}

uint64_t srs_manager::used_locked(key_tier t, const std::string& except) const {
  uint64_t used = 0;
  for (const auto& [id, e] : entries_)
    if (e.key && e.key->tier() == t && id != except) used += e.key->resident_bytes();
  return used;
}

status srs_manager::add(const std::string& id, const std::string& path, const key_summary& summary) {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  if (it != entries_.end() && busy(it->second))
    return status(errc::failed_precondition, "circuit " + id + ": its key is in use by " +
                                                 std::to_string(it->second.users) +
                                                 " proof(s); cannot replace it now");
  entry e;
  e.path = path;
  e.summary = summary;
  e.dev.resize(devices_.slots.size());
  entries_[id] = std::move(e);
  return status::ok();
}

status srs_manager::remove(const std::string& id) {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return status::ok();
  if (busy(it->second))
    return status(errc::failed_precondition, "circuit " + id + ": its key is in use by " +
                                                 std::to_string(it->second.users) + " proof(s)");
  entries_.erase(it);
  return status::ok();
}

void srs_manager::release(const std::string& id, int slot) noexcept {
  bool copy_unused = false;
  {
    std::lock_guard lk(m_);
    auto it = entries_.find(id);
    if (it != entries_.end() && it->second.users > 0) {
      entry& e = it->second;
      --e.users;
      e.use_seq = ++seq_;
      e.last_use_wall = wall_clock::now();
      if (slot >= 0 && static_cast<std::size_t>(slot) < e.dev.size() && e.dev[slot].users > 0) {
        device_copy& d = e.dev[slot];
        --d.users;
        d.use_seq = seq_;
        d.last_use_wall = e.last_use_wall;
        copy_unused = d.users == 0;
      }
    }
  }
  cv_.notify_all();
  // The copy can make room now: a worker or an upload waiting for device memory looks again.
  if (copy_unused)
    if (auto* b = device_budget(slot)) b->wake_waiters();
}

status srs_manager::demote_locked(entry& e, key_tier target, const std::string& except) {
  if (!e.key || e.key->tier() <= target) return status::ok();
  // Whatever happens below, the host budget then holds what the key still holds (less: only
  // releases).
  struct follow {
    srs_manager& m;
    entry& e;
    ~follow() { (void)m.reconcile_locked(e); }
  } follow_after{*this, e};
  if (target == key_tier::cold) {
    for (auto& d : e.dev) drop_copy(d);  // a device copy needs its key on the host
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

bool srs_manager::make_room_locked(key_tier t, uint64_t bytes, const std::string& except) {
  const uint64_t b = budget(t);
  if (bytes > b) return false;
  while (used_locked(t) + bytes > b) {
    entry* victim = nullptr;
    for (auto& [id, e] : entries_)
      if (e.key && e.key->tier() == t && !busy(e) && id != except &&
          (victim == nullptr || e.use_seq < victim->use_seq))
        victim = &e;
    if (victim == nullptr) return false;
    // A key moving down from the hot tier keeps its device copies (they do not use the host
    // copy's memory); one leaving the host drops them.
    (void)demote_locked(*victim, t == key_tier::hot ? key_tier::warm : key_tier::cold, except);
  }
  return true;
}

status srs_manager::load_locked(std::unique_lock<std::mutex>& lk, const std::string& id,
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
  const uint64_t host_estimate = host_load_bound(summary);  // load_estimate()
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
  auto k = loaded_key::load_warm(path, summary, check_);
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
    return status(errc::resource_exhausted, "circuit " + id + ": its key holds " + describe_bytes(need) +
                                                " of host memory once loaded, more than the " +
                                                describe_bytes(host_estimate) +
                                                " admitted, and the host budget has no room for the rest");
  }
  ++e->loads;
  e->use_seq = ++seq_;
  // Enforce the budget again with the measured size (matrices included).
  (void)make_room_locked(key_tier::warm, 0, id);
  return status::ok();
}

status srs_manager::promote_hot_locked(entry& e, const std::string& id, bool required) {
  if (!e.key || e.key->tier() >= key_tier::hot) return status::ok();
  const uint64_t need = e.key->hot_bytes();
  if (!make_room_locked(key_tier::hot, need, id)) {
    if (!required) return status::ok();
    return status(errc::resource_exhausted,
                  "circuit " + id + ": the hot tier cannot take " + std::to_string(need) + " bytes (budget " +
                      std::to_string(budgets_.hot) + ", " + std::to_string(used_locked(key_tier::hot)) +
                      " used by keys in use)");
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
      return status(errc::resource_exhausted, "circuit " + id + ": the host memory budget has no room for its hot copy (" +
                                                  describe_bytes(need) + "): " + r.error().message());
    }
    extra = std::move(r).value();
  }
  auto hot = loaded_key::make_hot(*e.key, alloc_);
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

result<reservation> srs_manager::reserve_device(const std::string& id, int slot, uint64_t estimate,
                                                const cancel_token* cancel) {
  memory_budget* b = device_budget(slot);
  if (b == nullptr) return reservation();
  const std::string purpose = "the key of circuit " + id + " on " + devices_.slots[slot].name;
  return b->acquire(estimate, {cancel, std::nullopt, purpose, true, nullptr});
}

status srs_manager::settle_device(const std::string& id, int slot, const device_key& k, reservation& mem) {
  memory_budget* b = device_budget(slot);
  if (b == nullptr) return status::ok();
  const uint64_t measured = k.bytes(), held = mem.bytes();
  if (measured <= held) {
    mem.release(held - measured);
    return status::ok();
  }
  acquire_options o;
  o.timeout = std::chrono::milliseconds(0);
  o.purpose = "the rest of the key of circuit " + id + " on " + devices_.slots[slot].name;
  auto more = b->acquire(measured - held, o);
  if (!more)
    return status(errc::resource_exhausted, "circuit " + id + ": its key took " + describe_bytes(measured) + " on " +
                                                devices_.slots[slot].name + ", " + describe_bytes(measured - held) +
                                                " more than estimated, and the " + b->name() +
                                                " memory budget has no room for the rest: " + more.error().message());
  return mem.absorb(std::move(more).value());
}

uint64_t srs_manager::slot_used_locked(int slot) const {
  uint64_t used = 0;
  for (const auto& [id, e] : entries_)
    if (e.dev[slot].key) used += e.dev[slot].key->bytes();
  return used;
}

bool srs_manager::make_slot_room_locked(int slot, uint64_t bytes, const std::string& except) {
  const uint64_t b = devices_.slots[slot].budget;
  if (bytes > b) return false;
  while (slot_used_locked(slot) + bytes > b) {
    device_copy* victim =
        least_recent_idle_copy_locked([&](int k, const std::string& id) { return k == slot && id != except; });
    if (victim == nullptr) return false;
    drop_copy(*victim);
  }
  return true;
}

status srs_manager::upload_locked(std::unique_lock<std::mutex>& lk, const std::string& id, int slot,
                                  const cancel_token* cancel) {
  const device_slot& where = devices_.slots[slot];
  for (;;) {
    auto it = entries_.find(id);
    if (it == entries_.end()) return status(errc::not_found, "circuit " + id + ": removed while waiting");
    entry& e = it->second;
    if (!e.key) return status(errc::internal, "circuit " + id + ": not on the host, cannot go to " + where.name);
    device_copy& d = e.dev[slot];
    if (d.key) return status::ok();
    if (d.uploading) {  // another worker of this slot is uploading it
      if (cancel && cancel->cancelled()) return cancelled("the key uploaded to " + where.name);
      cv_.wait_for(lk, wait_step);
      continue;
    }
    if (!devices_.uploader) return status(errc::internal, "srs_manager: device slots without an uploader");
    const uint64_t estimate = devices_.uploader->estimate_bytes(*e.key);
    if (estimate > where.budget)
      return status(errc::resource_exhausted, "circuit " + id + ": its key needs at least " + std::to_string(estimate) +
                                            " bytes on the device, more than the " + where.name + " budget of " +
                                            std::to_string(where.budget) + " bytes");
    if (!make_slot_room_locked(slot, estimate, id)) {
      if (cancel && cancel->cancelled()) return cancelled("waiting for room on " + where.name);
      cv_.wait_for(lk, wait_step);
      continue;
    }
    d.uploading = true;  // pins the entry (busy) while the lock is released
    const std::shared_ptr<const loaded_key> host = e.key;
    lk.unlock();
    // The device budget without the lock: waiting there may ask shed_device() for room.
    auto mem = reserve_device(id, slot, estimate, cancel);
    result<std::shared_ptr<const device_key>> up = mem.is_ok() ? devices_.uploader->upload(*host, slot, where)
                                                               : result<std::shared_ptr<const device_key>>(mem.error());
    if (up && mem.is_ok()) {
      const status fits = settle_device(id, slot, **up, mem.value());
      if (!fits) up = fits;  // the copy is freed here, before anyone waits for its memory
    }
    lk.lock();
    entry& e2 = entries_.at(id);  // not removed while busy
    device_copy& d2 = e2.dev[slot];
    d2.uploading = false;
    cv_.notify_all();
    if (!up) return up.error().with_context("circuit " + id + ": uploading its key to " + where.name);
    d2.key = std::move(up).value();
    d2.mem = std::move(mem).value();
    ++d2.uploads;
    d2.use_seq = ++seq_;
    // The budget again with the measured size: other unused copies make room; a copy that alone is
    // larger than the budget does not stay.
    if (!make_slot_room_locked(slot, 0, id) && d2.key->bytes() > where.budget) {
      const uint64_t measured = d2.key->bytes();
      drop_copy(d2);
      return status(errc::resource_exhausted, "circuit " + id + ": its key took " + std::to_string(measured) +
                                            " bytes on " + where.name + ", more than the budget of " +
                                            std::to_string(where.budget) + " bytes");
    }
    return status::ok();
  }
}

result<key_lease> srs_manager::acquire(const std::string& id, const cancel_token* cancel, double* load_seconds,
                                       int slot, reservation* key_charge) {
  const auto t0 = std::chrono::steady_clock::now();
  if (slot >= static_cast<int>(devices_.slots.size()))
    return status(errc::invalid_argument, "srs_manager: slot " + std::to_string(slot) + ": expected one of the " +
                                              std::to_string(devices_.slots.size()) + " device slots");
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
    if (!tried_device && !e.dev[slot].key) {
      tried_device = true;
      const status up = upload_locked(lk, id, slot, cancel);
      if (!up && cancel && cancel->cancelled()) return up;
      if (!up) note = up;
      continue;  // the lock was released: look again
    }
    std::shared_ptr<const device_key> dev;
    if (slot >= 0 && e.dev[slot].key) {
      device_copy& d = e.dev[slot];
      dev = d.key;
      ++d.users;
      d.last_use_wall = wall_clock::now();
      d.use_seq = seq_ + 1;
    }
    ++e.users;
    e.use_seq = ++seq_;
    e.last_use_wall = wall_clock::now();
    if (load_seconds)
      *load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return key_lease(this, id, e.key, slot, std::move(dev), dev ? status::ok() : note);
  }
}

result<tier_target> srs_manager::parse_target(const std::string& name) const {
  for (int t = 0; t < 4; ++t)
    if (name == key_tier_name(static_cast<key_tier>(t))) return tier_target(static_cast<key_tier>(t));
  std::string names = "cold, warm, hot, device";
  for (std::size_t k = 0; k < devices_.slots.size(); ++k) {
    names += ", " + devices_.slots[k].name;
    if (name == devices_.slots[k].name) return tier_target(key_tier::device, static_cast<int>(k));
  }
  return status(errc::invalid_argument, "tier: expected one of " + names + ", found \"" + name + "\"");
}

status srs_manager::preload(const std::string& id, tier_target target) {
  if (target.tier == key_tier::device && devices_.slots.empty())
    return status(errc::unsupported, "circuit " + id +
                                         ": no device tier (the engine proves on the CPU, or has no device "
                                         "slots)");
  if (target.slot >= static_cast<int>(devices_.slots.size()))
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
    const int last = target.slot < 0 ? static_cast<int>(devices_.slots.size()) - 1 : target.slot;
    for (int k = first; k <= last; ++k) CUZK_TRY(upload_locked(lk, id, k, nullptr));
    // Each upload released the lock: the key may have left the host meanwhile (then load again).
    auto again = entries_.find(id);
    if (again == entries_.end() || !again->second.key) continue;
    bool all = true;
    for (int k = first; k <= last; ++k) all = all && again->second.dev[k].key != nullptr;
    if (all) return status::ok();
  }
}

status srs_manager::evict(const std::string& id, tier_target target) {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return status(errc::not_found, "circuit " + id + ": no such key registered");
  entry& e = it->second;
  if (target.tier == key_tier::device) {
    if (target.slot < 0) return status::ok();  // every copy may stay where it is
    if (target.slot >= static_cast<int>(e.dev.size()))
      return status(errc::invalid_argument, "evict: slot " + std::to_string(target.slot) + " does not exist");
    device_copy& d = e.dev[target.slot];
    if (d.users > 0 || d.uploading)
      return status(errc::failed_precondition, "circuit " + id + ": its copy on " +
                                                   devices_.slots[target.slot].name + " is in use by " +
                                                   std::to_string(d.users) + " proof(s); evict it when they finish");
    drop_copy(d);
    return status::ok();
  }
  if (busy(e))
    return status(errc::failed_precondition, "circuit " + id + ": key in use by " + std::to_string(e.users) +
                                                 " proof(s); evict it when they finish");
  for (auto& d : e.dev) drop_copy(d);  // below the device tier
  return demote_locked(e, target.tier, id);
}

bool srs_manager::resident(const std::string& id) const {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  return it != entries_.end() && it->second.key != nullptr;
}

bool srs_manager::resident_on(const std::string& id, int slot) const {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  if (it == entries_.end() || slot < 0 || static_cast<std::size_t>(slot) >= it->second.dev.size()) return false;
  return it->second.dev[slot].key != nullptr;
}

std::vector<srs_entry_status> srs_manager::entries() const {
  std::lock_guard lk(m_);
  std::vector<srs_entry_status> out;
  for (const auto& [id, e] : entries_) {
    srs_entry_status s;
    s.circuit = id;
    s.path = e.path;
    const key_tier host = e.key ? e.key->tier() : key_tier::cold;
    s.host_tier_name = tier_name(host);
    s.tier = host;
    s.tier_name = s.host_tier_name;
    std::string on;
    for (std::size_t k = 0; k < e.dev.size(); ++k) {
      const device_copy& d = e.dev[k];
      if (!d.key && !d.uploading && d.uploads == 0) continue;
      srs_device_copy_status c;
      c.slot = devices_.slots[k].name;
      c.bytes = d.key ? d.key->bytes() : 0;
      c.users = d.users;
      c.uploading = d.uploading;
      c.last_use = d.last_use_wall;
      c.uploads = d.uploads;
      s.device_bytes += c.bytes;
      if (d.key) on += (on.empty() ? "" : ",") + c.slot;
      s.devices.push_back(std::move(c));
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

std::array<srs_tier_status, 4> srs_manager::tiers() const {
  std::lock_guard lk(m_);
  std::array<srs_tier_status, 4> out;
  for (int i = 0; i < 4; ++i) {
    const auto t = static_cast<key_tier>(i);
    auto& s = out[i];
    s.tier = t;
    s.name = tier_name(t);
    s.budget = t == key_tier::cold ? 0 : budget(t);
    s.present = t == key_tier::cold || t == key_tier::warm || (t == key_tier::hot && budgets_.hot > 0) ||
                (t == key_tier::device && !devices_.slots.empty());
  }
  for (const auto& [id, e] : entries_) {
    const key_tier host = e.key ? e.key->tier() : key_tier::cold;
    auto& h = out[static_cast<int>(host)];
    ++h.keys;
    if (e.key) h.used += e.key->resident_bytes();
    bool on_device = false;
    for (const auto& d : e.dev)
      if (d.key) {
        on_device = true;
        out[static_cast<int>(key_tier::device)].used += d.key->bytes();
      }
    if (on_device) ++out[static_cast<int>(key_tier::device)].keys;
  }
  return out;
}

std::vector<srs_slot_status> srs_manager::slots() const {
  std::lock_guard lk(m_);
  std::vector<srs_slot_status> out;
  for (std::size_t k = 0; k < devices_.slots.size(); ++k) {
    srs_slot_status s;
    s.name = devices_.slots[k].name;
    s.ordinal = devices_.slots[k].ordinal;
    s.budget = devices_.slots[k].budget;
    s.used = slot_used_locked(static_cast<int>(k));
    for (const auto& [id, e] : entries_) s.keys += e.dev[k].key ? 1 : 0;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace cuzk::engine
