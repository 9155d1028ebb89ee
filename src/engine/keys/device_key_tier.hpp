// SPDX-License-Identifier: MIT OR Apache-2.0
// The key manager's device tier: every key's copies on the device slots (device_tier.hpp), each
// slot's byte budget, the copies' reservations in the device memory budgets, uploads, and least
// recently used eviction of copies no proof uses. The host tiers stay in key_manager.hpp.
//
// A copy exists only while its key is resident on the host (synthesis needs the matrices), so the
// manager drops a key's copies when the key goes cold. An upload is admitted on the uploader's
// estimate: room is made on the slot by dropping idle copies, the estimate is reserved in the
// device's budget (waiting in its line, which may ask this tier's evictor), and once the copy is
// there its measured size settles the reservation and the slot's budget; a copy that alone is
// larger than the budget does not stay. The tier is each device budget's evictor of rank
// evictor_rank::proving_keys.
//
// A copy whose points stay in pinned host memory (a key streamed from the host) charges them to the
// host budget. Where the key's host copy is a mapped file, that charge is first lent by the key
// (host_lender): the file's pages are page cache the kernel takes back under pressure, and the
// points are read from the pinned copy from then on, so counting both would refuse a key that fits
// (a 44 GB PoRep key's mapping and its 36 GiB of pinned points on a 128 GiB host). What is lent
// goes back to the key when the copy is dropped.
//
// Thread safety: the tier shares the manager's mutex and condition variable, because the manager
// decides over the host and device tiers under one lock (acquire() may load, promote and upload in
// one pass). Methods named `_locked` need that mutex held by the caller; upload_locked() releases
// it while the copy is made. The evictor takes the mutex itself.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "engine/jobs/cancel_token.hpp"
#include "engine/jobs/job.hpp"
#include "engine/keys/device_tier.hpp"
#include "engine/keys/loaded_key.hpp"
#include "engine/memory/memory_budget.hpp"

namespace cuzk::engine {

// The device tier as the manager is given it: its slots and the uploader that puts keys on them.
// No slots: no device tier.
struct device_tier {
  std::vector<device_slot> slots;
  std::shared_ptr<device_uploader> uploader;
  // The device memory budget of each ordinal the slots use (key copies and the workers' buffers
  // together; memory_budget.hpp). An ordinal missing here has no budget: only its slots' key
  // budgets bound it.
  std::map<int, uint64_t> memory_limits;
};

// A key's copy on one device slot.
struct key_device_copy_status {
  std::string slot;       // "device:0"
  bool resident = false;  // the copy is there now (else it is uploading, or was dropped)
  uint64_t bytes = 0;
  uint32_t users = 0;
  bool uploading = false;
  std::optional<wall_time> last_use;
  uint64_t uploads = 0;  // times uploaded to this slot
  std::string placement;  // device_key::placement() of the copy there now
};

struct key_slot_status {
  std::string name;  // "device:0"
  int ordinal = 0;
  uint64_t budget = 0;
  uint64_t used = 0;
  std::size_t keys = 0;
};

// Where an upload's pinned points are charged first (see the opening comment): the manager's part.
// Both are called with the manager's mutex held.
struct host_lender {
  // Up to `bytes` of the host budget's reservation held for key `id`, moved out to the caller.
  std::function<reservation(const std::string& id, uint64_t bytes)> borrow;
  // A reservation borrow() gave, returned to key `id`.
  std::function<void(const std::string& id, reservation back)> give_back;
};

class device_key_tier {
 public:
  // `memory`, when given, must outlive the tier: its device budgets hold the copies' bytes.
  device_key_tier(device_tier devices, memory_budgets* memory, std::mutex& m, std::condition_variable& cv);
  device_key_tier(const device_key_tier&) = delete;
  device_key_tier& operator=(const device_key_tier&) = delete;

  // Set once, before the first upload.
  void set_host_lender(host_lender l) { lender_ = std::move(l); }

  const std::vector<device_slot>& slots() const noexcept { return devices_.slots; }
  bool present() const noexcept { return !devices_.slots.empty(); }
  uint64_t budget() const noexcept;  // all slots together

  // A key registered (no copies yet) or forgotten (its copies dropped).
  void add_locked(const std::string& id);
  void remove_locked(const std::string& id);

  // Whether an upload of the key is under way on any slot (the key must not move meanwhile).
  bool uploading_locked(const std::string& id) const;
  bool on_slot_locked(const std::string& id, int slot) const;
  // The key's copy on `slot` for a lease (one more user, most recently used), or null without one.
  std::shared_ptr<const device_key> use_locked(const std::string& id, int slot);
  // A lease on the copy ended at `when`; true when the copy is unused now (it can make room).
  bool release_locked(const std::string& id, int slot, wall_time when);
  // The key left the host: every copy goes.
  void drop_all_locked(const std::string& id);
  // Drops the key's copy on `slot`. Refused while a proof uses it or it is uploading.
  status drop_locked(const std::string& id, int slot);

  // The key onto `slot`, waiting for room; the lock is released while it uploads. `host` gives the
  // key's host copy, under the lock (an error when the key is gone or not on the host). Ok once the
  // copy is there.
  status upload_locked(std::unique_lock<std::mutex>& lk, const std::string& id, int slot,
                       const cancel_token* cancel,
                       const std::function<result<std::shared_ptr<const loaded_key>>()>& host);

  // Whoever waits for memory on the slot's device looks again (a copy became unused).
  void wake(int slot) const;

  // For status: the key's copies that exist or existed, and per slot its budget and use.
  std::vector<key_device_copy_status> copies_locked(const std::string& id) const;
  uint64_t used_locked() const;
  std::size_t keys_locked() const;  // keys with at least one copy
  std::vector<key_slot_status> slots_locked() const;

 private:
  struct device_copy {
    std::shared_ptr<const device_key> key;  // null: not on this slot
    uint32_t users = 0;
    bool uploading = false;
    std::optional<wall_time> last_use_wall;
    uint64_t use_seq = 0;  // LRU order within the tier
    uint64_t uploads = 0;
    reservation mem;  // its bytes in its device's budget (with one)
    reservation host_mem;  // its host bytes (device_key::host_bytes) in the host budget, beyond `lent`
    reservation lent;      // the part of them its key's host copy lent (host_lender)
    std::string id;        // its key's, to give `lent` back
  };

  device_copy* copy_locked(const std::string& id, int slot);
  const device_copy* copy_locked(const std::string& id, int slot) const;
  memory_budget* device_budget(int slot) const noexcept;
  // The least recently used copy that nobody uses or uploads, among those `eligible` accepts (by
  // slot index and key id); null when there is none.
  device_copy* least_recent_idle_locked(const std::function<bool(int slot, const std::string& id)>& eligible);
  // Frees the copy's device memory, then its reservations; what its key lent goes back to the key.
  void drop(device_copy& d) noexcept;
  // `r` back to key `id` through the lender (or released without one).
  void give_back_locked(const std::string& id, reservation r) noexcept;
  // A device budget's evictor: copies nobody uses on the slots of `ordinal`, LRU first.
  uint64_t shed(int ordinal, uint64_t missing);
  // An upload's reservation of `estimate` on the slot's device budget, waiting in its line (a
  // detached one without a budget). Called without the lock.
  result<reservation> reserve(const std::string& id, int slot, uint64_t estimate, const cancel_token* cancel);
  // `mem` made the measured size of the uploaded copy `k`: the surplus returned, a shortfall taken
  // from free room or evictions (not waiting: the copy holds device memory). Called without the lock.
  status settle(const std::string& id, int slot, const device_key& k, reservation& mem);
  // The host memory an upload's pinned copies will hold (device_uploader::estimate_host_bytes),
  // from free room or evictions without waiting; and made the copy's measured host_bytes() after.
  // Called without the lock.
  result<reservation> reserve_host(const std::string& id, int slot, uint64_t bytes);
  // `lent` counts towards the measured bytes; a surplus is returned from host_mem (the key's lent
  // part is trimmed by the caller, under the lock).
  status settle_host(const std::string& id, const device_key& k, reservation& host_mem, uint64_t lent);
  uint64_t slot_used_locked(int slot) const;
  bool make_slot_room_locked(int slot, uint64_t bytes, const std::string& except);

  const device_tier devices_;
  memory_budgets* memory_ = nullptr;
  host_lender lender_;
  std::mutex& m_;
  std::condition_variable& cv_;
  std::map<std::string, std::vector<device_copy>> copies_;  // by key id, one per slot
  uint64_t seq_ = 0;
  // Last: unregistered first.
  std::vector<evictor_registration> evictors_;
};

}  // namespace cuzk::engine
