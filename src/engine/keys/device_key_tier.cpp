// SPDX-License-Identifier: MIT OR Apache-2.0
// The key manager's device tier (see device_key_tier.hpp).
#include "engine/keys/device_key_tier.hpp"

#include <algorithm>
#include <chrono>
#include <set>

namespace cuzk::engine {

namespace {

// How long a waiter sleeps between looks at its cancel token.
constexpr auto wait_step = std::chrono::milliseconds(50);

status cancelled(const std::string& what) { return status(errc::cancelled, "cancelled while " + what); }

}  // namespace

device_key_tier::device_key_tier(device_tier devices, memory_budgets* memory, std::mutex& m,
                                 std::condition_variable& cv)
    : devices_(std::move(devices)), memory_(memory), m_(m), cv_(cv) {
  if (memory_ == nullptr) return;
  std::set<int> ordinals;
  for (const auto& sl : devices_.slots) ordinals.insert(sl.ordinal);
  for (int o : ordinals)
    if (auto* b = memory_->device(o))
      evictors_.push_back(b->add_evictor("proving key copies", evictor_rank::proving_keys,
                                         [this, o](uint64_t missing) { return shed(o, missing); }));
}

uint64_t device_key_tier::budget() const noexcept {
  uint64_t sum = 0;
  for (const auto& s : devices_.slots) sum += s.budget;
  return sum;
}

void device_key_tier::add_locked(const std::string& id) {
  auto& copies = copies_[id];
  for (auto& d : copies) drop(d);
  copies.clear();
  copies.resize(devices_.slots.size());
  for (auto& d : copies) d.id = id;
}

void device_key_tier::remove_locked(const std::string& id) {
  drop_all_locked(id);
  copies_.erase(id);
}

device_key_tier::device_copy* device_key_tier::copy_locked(const std::string& id, int slot) {
  auto it = copies_.find(id);
  if (it == copies_.end() || slot < 0 || static_cast<std::size_t>(slot) >= it->second.size()) return nullptr;
  return &it->second[slot];
}

const device_key_tier::device_copy* device_key_tier::copy_locked(const std::string& id, int slot) const {
  return const_cast<device_key_tier*>(this)->copy_locked(id, slot);
}

bool device_key_tier::uploading_locked(const std::string& id) const {
  auto it = copies_.find(id);
  if (it == copies_.end()) return false;
  for (const auto& d : it->second)
    if (d.uploading) return true;
  return false;
}

bool device_key_tier::on_slot_locked(const std::string& id, int slot) const {
  const device_copy* d = copy_locked(id, slot);
  return d != nullptr && d->key != nullptr;
}

std::shared_ptr<const device_key> device_key_tier::use_locked(const std::string& id, int slot) {
  device_copy* d = copy_locked(id, slot);
  if (d == nullptr || !d->key) return nullptr;
  ++d->users;
  d->last_use_wall = wall_clock::now();
  d->use_seq = ++seq_;
  return d->key;
}

bool device_key_tier::release_locked(const std::string& id, int slot, wall_time when) {
  device_copy* d = copy_locked(id, slot);
  if (d == nullptr || d->users == 0) return false;
  --d->users;
  d->use_seq = ++seq_;
  d->last_use_wall = when;
  return d->users == 0;
}

void device_key_tier::drop_all_locked(const std::string& id) {
  auto it = copies_.find(id);
  if (it == copies_.end()) return;
  for (auto& d : it->second) drop(d);
}

status device_key_tier::drop_locked(const std::string& id, int slot) {
  device_copy* d = copy_locked(id, slot);
  if (d == nullptr) return status(errc::invalid_argument, "evict: slot " + std::to_string(slot) + " does not exist");
  if (d->users > 0 || d->uploading)
    return status(errc::failed_precondition, "circuit " + id + ": its copy on " + devices_.slots[slot].name +
                                                 " is in use by " + std::to_string(d->users) +
                                                 " proof(s); evict it when they finish");
  drop(*d);
  return status::ok();
}

void device_key_tier::wake(int slot) const {
  if (auto* b = device_budget(slot)) b->wake_waiters();
}

memory_budget* device_key_tier::device_budget(int slot) const noexcept {
  if (memory_ == nullptr || slot < 0 || static_cast<std::size_t>(slot) >= devices_.slots.size()) return nullptr;
  return memory_->device(devices_.slots[slot].ordinal);
}

device_key_tier::device_copy* device_key_tier::least_recent_idle_locked(
    const std::function<bool(int slot, const std::string& id)>& eligible) {
  device_copy* victim = nullptr;
  for (auto& [id, copies] : copies_)
    for (std::size_t k = 0; k < copies.size(); ++k) {
      device_copy& d = copies[k];
      if (d.key && d.users == 0 && !d.uploading && eligible(static_cast<int>(k), id) &&
          (victim == nullptr || d.use_seq < victim->use_seq))
        victim = &d;
    }
  return victim;
}

void device_key_tier::drop(device_copy& d) noexcept {
  d.key.reset();  // nobody else holds it when nobody uses it: the device memory is free now
  d.mem.reset();
  d.host_mem.reset();
  if (d.lent) give_back_locked(d.id, std::move(d.lent));
}

void device_key_tier::give_back_locked(const std::string& id, reservation r) noexcept {
  if (!r) return;
  if (lender_.give_back)
    lender_.give_back(id, std::move(r));
  else
    r.reset();
}

result<reservation> device_key_tier::reserve_host(const std::string& id, int slot, uint64_t bytes) {
  if (memory_ == nullptr || bytes == 0) return reservation();
  // Without waiting: the uploading worker holds its job's working set, so a wait for memory that
  // other jobs hold could last for good. An upload that finds no room fails, and the lease says
  // why (the job is proven on the CPU).
  const std::string purpose = "the pinned points the key of circuit " + id + " streams to " + devices_.slots[slot].name;
  return memory_->host().acquire(bytes, {nullptr, std::chrono::milliseconds(0), purpose, true, nullptr});
}

status device_key_tier::settle_host(const std::string& id, const device_key& k, reservation& host_mem,
                                     uint64_t lent) {
  if (memory_ == nullptr) return status::ok();
  const uint64_t measured = k.host_bytes(), held = host_mem.bytes() + lent;
  if (measured <= held) {
    host_mem.release(std::min(held - measured, host_mem.bytes()));
    return status::ok();
  }
  auto more = memory_->host().acquire(measured - held, {nullptr, std::chrono::milliseconds(0),
                                                        "the rest of the pinned points of circuit " + id, true, nullptr});
  if (!more)
    return status(errc::resource_exhausted, "circuit " + id + ": its device copy holds " + describe_bytes(measured) +
                                                " of pinned host memory, more than estimated, and the host budget has "
                                                "no room for the rest: " + more.error().message());
  return host_mem.absorb(std::move(more).value());
}

uint64_t device_key_tier::shed(int ordinal, uint64_t missing) {
  uint64_t freed = 0;
  {
    std::lock_guard lk(m_);
    while (freed < missing) {
      device_copy* victim = least_recent_idle_locked(
          [&](int slot, const std::string&) { return devices_.slots[slot].ordinal == ordinal; });
      if (victim == nullptr) break;
      freed += victim->mem.bytes();
      drop(*victim);
    }
  }
  cv_.notify_all();
  return freed;
}

result<reservation> device_key_tier::reserve(const std::string& id, int slot, uint64_t estimate,
                                             const cancel_token* cancel) {
  memory_budget* b = device_budget(slot);
  if (b == nullptr) return reservation();
  const std::string purpose = "the key of circuit " + id + " on " + devices_.slots[slot].name;
  return b->acquire(estimate, {cancel, std::nullopt, purpose, true, nullptr});
}

status device_key_tier::settle(const std::string& id, int slot, const device_key& k, reservation& mem) {
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

uint64_t device_key_tier::slot_used_locked(int slot) const {
  uint64_t used = 0;
  for (const auto& [id, copies] : copies_)
    if (copies[slot].key) used += copies[slot].key->bytes();
  return used;
}

bool device_key_tier::make_slot_room_locked(int slot, uint64_t bytes, const std::string& except) {
  const uint64_t b = devices_.slots[slot].budget;
  if (bytes > b) return false;
  while (slot_used_locked(slot) + bytes > b) {
    device_copy* victim =
        least_recent_idle_locked([&](int k, const std::string& id) { return k == slot && id != except; });
    if (victim == nullptr) return false;
    drop(*victim);
  }
  return true;
}

status device_key_tier::upload_locked(std::unique_lock<std::mutex>& lk, const std::string& id, int slot,
                                      const cancel_token* cancel,
                                      const std::function<result<std::shared_ptr<const loaded_key>>()>& host) {
  const device_slot& where = devices_.slots[slot];
  for (;;) {
    auto on_host = host();
    if (!on_host) return on_host.error();
    device_copy* d = copy_locked(id, slot);
    if (d == nullptr) return status(errc::not_found, "circuit " + id + ": removed while waiting");
    if (d->key) return status::ok();
    if (d->uploading) {  // another worker of this slot is uploading it
      if (cancel && cancel->cancelled()) return cancelled("the key uploaded to " + where.name);
      cv_.wait_for(lk, wait_step);
      continue;
    }
    if (!devices_.uploader) return status(errc::internal, "key_manager: device slots without an uploader");
    const std::shared_ptr<const loaded_key> key = std::move(on_host).value();
    const uint64_t estimate = devices_.uploader->estimate_bytes(*key, where.budget);
    const uint64_t host_estimate = devices_.uploader->estimate_host_bytes(*key, where.budget);
    if (estimate > where.budget)
      return status(errc::resource_exhausted, "circuit " + id + ": its key needs at least " + std::to_string(estimate) +
                                                  " bytes on the device, more than the " + where.name +
                                                  " budget of " + std::to_string(where.budget) + " bytes");
    if (!make_slot_room_locked(slot, estimate, id)) {
      if (cancel && cancel->cancelled()) return cancelled("waiting for room on " + where.name);
      cv_.wait_for(lk, wait_step);
      continue;
    }
    d->uploading = true;  // pins the key (the manager sees it uploading) while the lock is released
    // The pinned points charged to what the key's mapped file holds first (see the opening comment).
    reservation lent = host_estimate > 0 && lender_.borrow ? lender_.borrow(id, host_estimate) : reservation();
    lk.unlock();
    // The device budget without the lock: waiting there may ask shed() for room.
    auto mem = reserve(id, slot, estimate, cancel);
    auto host_mem = mem.is_ok() ? reserve_host(id, slot, host_estimate - std::min(host_estimate, lent.bytes()))
                                : result<reservation>(reservation());
    result<std::shared_ptr<const device_key>> up =
        !mem.is_ok()        ? result<std::shared_ptr<const device_key>>(mem.error())
        : !host_mem.is_ok() ? result<std::shared_ptr<const device_key>>(host_mem.error())
                            : devices_.uploader->upload(*key, slot, where);
    if (up) {
      status fits = settle(id, slot, **up, mem.value());
      if (fits) fits = settle_host(id, **up, host_mem.value(), lent.bytes());
      if (!fits) up = fits;  // the copy is freed here, before anyone waits for its memory
    }
    lk.lock();
    device_copy& d2 = *copy_locked(id, slot);  // not removed while uploading
    d2.uploading = false;
    cv_.notify_all();
    if (!up) {
      give_back_locked(id, std::move(lent));
      return up.error().with_context("circuit " + id + ": uploading its key to " + where.name);
    }
    // What the copy's pinned points do not use of the lent part goes back to the key now.
    if (const uint64_t pinned = (*up)->host_bytes(); lent.bytes() > pinned)
      give_back_locked(id, lent.split(lent.bytes() - pinned));
    d2.key = std::move(up).value();
    d2.mem = std::move(mem).value();
    d2.host_mem = std::move(host_mem).value();
    d2.lent = std::move(lent);
    ++d2.uploads;
    d2.use_seq = ++seq_;
    // The budget again with the measured size: other unused copies make room; a copy that alone is
    // larger than the budget does not stay.
    if (!make_slot_room_locked(slot, 0, id) && d2.key->bytes() > where.budget) {
      const uint64_t measured = d2.key->bytes();
      drop(d2);
      return status(errc::resource_exhausted, "circuit " + id + ": its key took " + std::to_string(measured) +
                                                  " bytes on " + where.name + ", more than the budget of " +
                                                  std::to_string(where.budget) + " bytes");
    }
    return status::ok();
  }
}

std::vector<key_device_copy_status> device_key_tier::copies_locked(const std::string& id) const {
  std::vector<key_device_copy_status> out;
  auto it = copies_.find(id);
  if (it == copies_.end()) return out;
  for (std::size_t k = 0; k < it->second.size(); ++k) {
    const device_copy& d = it->second[k];
    if (!d.key && !d.uploading && d.uploads == 0) continue;
    key_device_copy_status c;
    c.slot = devices_.slots[k].name;
    c.resident = d.key != nullptr;
    c.bytes = d.key ? d.key->bytes() : 0;
    c.users = d.users;
    c.uploading = d.uploading;
    c.last_use = d.last_use_wall;
    c.uploads = d.uploads;
    if (d.key) c.placement = d.key->placement();
    out.push_back(std::move(c));
  }
  return out;
}

uint64_t device_key_tier::used_locked() const {
  uint64_t used = 0;
  for (const auto& [id, copies] : copies_)
    for (const auto& d : copies)
      if (d.key) used += d.key->bytes();
  return used;
}

std::size_t device_key_tier::keys_locked() const {
  std::size_t keys = 0;
  for (const auto& [id, copies] : copies_)
    for (const auto& d : copies)
      if (d.key) {
        ++keys;
        break;
      }
  return keys;
}

std::vector<key_slot_status> device_key_tier::slots_locked() const {
  std::vector<key_slot_status> out;
  for (std::size_t k = 0; k < devices_.slots.size(); ++k) {
    key_slot_status s;
    s.name = devices_.slots[k].name;
    s.ordinal = devices_.slots[k].ordinal;
    s.budget = devices_.slots[k].budget;
    s.used = slot_used_locked(static_cast<int>(k));
    for (const auto& [id, copies] : copies_) s.keys += copies[k].key ? 1 : 0;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace cuzk::engine
