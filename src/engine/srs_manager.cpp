// Residency of proving keys (see srs_manager.hpp).
#include "engine/srs_manager.hpp"

#include <chrono>

namespace cuzk::engine {

void key_lease::release() noexcept {
  if (mgr_ != nullptr) mgr_->release(id_);
  mgr_ = nullptr;
  key_.reset();
}

srs_manager::srs_manager(tier_budgets budgets, host_allocator& alloc, point_check check)
    : budgets_(budgets), alloc_(alloc), check_(check) {}

uint64_t srs_manager::budget(key_tier t) const noexcept {
  switch (t) {
    case key_tier::device:
      return budgets_.device;
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

uint64_t srs_manager::used_locked(key_tier t, const std::string& except) const {
  uint64_t used = 0;
  for (const auto& [id, e] : entries_)
    if (e.key && e.key->tier() == t && id != except) used += e.key->resident_bytes();
  return used;
}

status srs_manager::add(const std::string& id, const std::string& path, const key_summary& summary) {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  if (it != entries_.end() && (it->second.users > 0 || it->second.loading))
    return status(errc::failed_precondition, "circuit " + id + ": its key is in use by " +
                                                 std::to_string(it->second.users) +
                                                 " proof(s); cannot replace it now");
  entry e;
  e.path = path;
  e.summary = summary;
  entries_[id] = std::move(e);
  return status::ok();
}

status srs_manager::remove(const std::string& id) {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return status::ok();
  if (it->second.users > 0 || it->second.loading)
    return status(errc::failed_precondition, "circuit " + id + ": its key is in use by " +
                                                 std::to_string(it->second.users) + " proof(s)");
  entries_.erase(it);
  return status::ok();
}

void srs_manager::release(const std::string& id) noexcept {
  {
    std::lock_guard lk(m_);
    auto it = entries_.find(id);
    if (it != entries_.end() && it->second.users > 0) {
      --it->second.users;
      it->second.use_seq = ++seq_;
      it->second.last_use_wall = wall_clock::now();
    }
  }
  cv_.notify_all();
}

status srs_manager::demote_locked(entry& e, key_tier target) {
  if (!e.key || e.key->tier() <= target) return status::ok();
  if (target == key_tier::cold) {
    e.key.reset();
    return status::ok();
  }
  // hot -> warm: map the file again (the matrices are shared, nothing is rebuilt). When the warm
  // tier has no room the key goes cold instead.
  if (!make_room_locked(key_tier::warm, e.key->mapped_bytes() + e.key->owned_bytes(), {})) {
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
      if (e.key && e.key->tier() == t && e.users == 0 && !e.loading && id != except &&
          (victim == nullptr || e.use_seq < victim->use_seq))
        victim = &e;
    if (victim == nullptr) return false;
    (void)demote_locked(*victim, t == key_tier::hot ? key_tier::warm : key_tier::cold);
  }
  return true;
}

status srs_manager::load_locked(std::unique_lock<std::mutex>& lk, const std::string& id,
                                const cancel_token* cancel) {
  entry* e = &entries_.at(id);
  const uint64_t estimate = e->summary.file_bytes;
  if (estimate > budgets_.warm)
    return status(errc::resource_exhausted, "circuit " + id + ": key " + e->path + " is " +
                                                std::to_string(estimate) +
                                                " bytes, more than the whole warm budget of " +
                                                std::to_string(budgets_.warm) + " bytes");
  while (!make_room_locked(key_tier::warm, estimate, id)) {
    if (cancel && cancel->cancelled())
      return status(errc::cancelled, "cancelled while waiting for key memory");
    cv_.wait_for(lk, std::chrono::milliseconds(50));
    auto it = entries_.find(id);
    if (it == entries_.end()) return status(errc::not_found, "circuit " + id + ": removed while waiting");
    e = &it->second;
    if (e->key) return status::ok();  // someone else loaded it meanwhile
  }
  e->loading = true;
  const std::string path = e->path;
  const key_summary summary = e->summary;
  lk.unlock();
  auto k = loaded_key::load_warm(path, summary, check_);
  lk.lock();
  e = &entries_.at(id);  // entries are not removed while loading
  e->loading = false;
  cv_.notify_all();
  if (!k) return k.error();
  e->key = std::move(k).value();
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
  auto hot = loaded_key::make_hot(*e.key, alloc_);
  if (!hot) return hot.error();
  e.key = std::move(hot).value();
  return status::ok();
}

result<key_lease> srs_manager::acquire(const std::string& id, const cancel_token* cancel,
                                       double* load_seconds) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_lock lk(m_);
  for (;;) {
    auto it = entries_.find(id);
    if (it == entries_.end()) return status(errc::not_found, "circuit " + id + ": no such key registered");
    entry& e = it->second;
    if (e.loading) {
      if (cancel && cancel->cancelled()) return status(errc::cancelled, "cancelled while the key loaded");
      cv_.wait_for(lk, std::chrono::milliseconds(50));
      continue;
    }
    if (!e.key) {
      CUZK_TRY(load_locked(lk, id, cancel));
      continue;
    }
    if (budgets_.hot > 0) CUZK_TRY(promote_hot_locked(e, id, false));
    ++e.users;
    e.use_seq = ++seq_;
    e.last_use_wall = wall_clock::now();
    if (load_seconds)
      *load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return key_lease(this, id, e.key);
  }
}

status srs_manager::preload(const std::string& id, key_tier target) {
  if (target == key_tier::device)
    return status(errc::unsupported, "circuit " + id +
                                         ": the device tier needs the GPU backend, which this engine "
                                         "does not have (device budget 0)");
  if (target == key_tier::cold) return status::ok();
  std::unique_lock lk(m_);
  for (;;) {
    auto it = entries_.find(id);
    if (it == entries_.end()) return status(errc::not_found, "circuit " + id + ": no such key registered");
    entry& e = it->second;
    if (e.loading) {
      cv_.wait_for(lk, std::chrono::milliseconds(50));
      continue;
    }
    if (!e.key) {
      CUZK_TRY(load_locked(lk, id, nullptr));
      continue;
    }
    if (target == key_tier::hot) CUZK_TRY(promote_hot_locked(e, id, true));
    e.use_seq = ++seq_;
    return status::ok();
  }
}

status srs_manager::evict(const std::string& id, key_tier target) {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return status(errc::not_found, "circuit " + id + ": no such key registered");
  entry& e = it->second;
  if (e.users > 0 || e.loading)
    return status(errc::failed_precondition, "circuit " + id + ": key in use by " + std::to_string(e.users) +
                                                 " proof(s); evict it when they finish");
  return demote_locked(e, target);
}

bool srs_manager::resident(const std::string& id) const {
  std::lock_guard lk(m_);
  auto it = entries_.find(id);
  return it != entries_.end() && it->second.key != nullptr;
}

std::vector<srs_entry_status> srs_manager::entries() const {
  std::lock_guard lk(m_);
  std::vector<srs_entry_status> out;
  for (const auto& [id, e] : entries_) {
    srs_entry_status s;
    s.circuit = id;
    s.path = e.path;
    s.tier = e.key ? e.key->tier() : key_tier::cold;
    s.tier_name = tier_name(s.tier);
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
    s.present = t == key_tier::cold || t == key_tier::warm || (t == key_tier::hot && budgets_.hot > 0);
    for (const auto& [id, e] : entries_)
      if ((e.key ? e.key->tier() : key_tier::cold) == t) {
        ++s.keys;
        if (e.key) s.used += e.key->resident_bytes();
      }
  }
  return out;
}

}  // namespace cuzk::engine
