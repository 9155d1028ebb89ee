// SPDX-License-Identifier: MIT OR Apache-2.0
// The key manager: which proving keys are resident in which tier, within a byte budget per tier.
//
// Keys start cold (registered, nothing mapped). acquire() makes a key resident for a proof, loading
// it when cold (warm first, then hot when the hot budget has room), and hands back a key_lease: an
// RAII reference count that keeps the key from being evicted or moved while a proof uses it.
// When a tier is over budget, the least recently used keys that nobody uses move down one tier
// (hot -> warm -> cold) until the new key fits; a load that cannot fit because every other key in
// the tier is in use waits for a lease to end (checking the job's cancel token). preload() and
// evict() move a key up or down on request; evict() refuses a key in use.
//
// The device tier (device_key_tier.hpp, a class of its own that this one holds) keeps copies of
// host-resident keys on GPUs: one per slot, each slot with its own byte budget. acquire() for a
// worker of slot d also makes the key resident on d (uploaded once through the uploader, then
// reused by every proof) and the lease references that copy too; when d's budget is full, the least
// recently used copies on d that no proof uses are dropped (the key stays on the host), and an
// upload that cannot find room because every other copy on d is in use waits for a lease to end. A
// key that cannot go to the device (larger than the whole budget, or the upload failed) is still
// leased, without a device copy and with the reason (device_note), so the backend can prove it
// another way. A device copy exists only while its key is resident on the host (synthesis needs the
// matrices), so a key going cold drops its device copies.
//
// Accounting is truthful: a warm key counts its mapped file plus what it owns (misaligned sections
// the zkey reader copied, the constraint matrices); a hot key counts its copy and the matrices; a
// device copy counts the bytes its upload allocated (device_key::bytes). A key's bytes are known only once it is loaded, so
// a load is admitted on the file's size (an upload on the uploader's estimate) and the budget is
// enforced again with the measured size (a key larger than expected can leave a tier briefly over
// budget when nothing else can be evicted; status shows it).
// The device memory budgets (optional, memory_budget.hpp; one per device ordinal, shared by the
// slots on that device and by the workers' buffers there): with them, every device copy holds a
// reservation of its bytes. An upload reserves the uploader's estimate before it starts (waiting in
// the budget's line, which asks the evictors: idle workers' buffers, then copies nobody uses,
// least recently used first) and the measured size after; a copy whose measured size finds no
// room is dropped again, and the lease has no device copy, with the reason. The manager is each
// device budget's evictor of rank evictor_rank::proving_keys.
// The host memory budget (optional, memory_budget.hpp): with one, every key's host bytes are also
// held as a reservation of it, so keys and proofs in flight share one limit. A load reserves
// load_estimate() before it reads the file (from the caller's charge when given: the engine's
// admission reserves a job's key together with its working set, so a job never waits in the
// budget's line while holding memory that the job ahead of it in that line needs), and the
// reservation follows the measured size after; a promotion to hot takes its extra only from free
// room (it is optional); moving a key down returns what it no longer holds. The manager is the
// budget's evictor of rank evictor_rank::proving_keys: asked for room, it moves keys nobody uses
// down a tier, least recently used first, until enough is freed.
//
// The hot tier's name says what its memory is: "hot(pageable)" with the pageable allocator,
// "hot(pinned)" with the GPU backend's pinned one. Without device slots the device tier is absent.
//
// Thread safety: every method from any thread; one mutex, held while choosing and while moving a
// key down a tier, released while a key loads from disk or uploads to a device (other keys stay
// usable meanwhile).
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "engine/jobs/cancel_token.hpp"
#include "engine/jobs/job.hpp"
#include "engine/keys/device_key_tier.hpp"
#include "engine/keys/device_tier.hpp"
#include "engine/jobs/key_summary.hpp"
#include "engine/keys/loaded_key.hpp"
#include "engine/memory/host_allocator.hpp"
#include "engine/memory/memory_budget.hpp"

namespace cuzk::engine {

// The host tiers' budgets; the device tier's are per slot (device_slot::budget).
struct tier_budgets {
  uint64_t hot = 0;            // bytes of host memory for fully loaded keys; 0 = keys stay warm
  uint64_t warm = UINT64_MAX;  // bytes of mapped files (page cache) plus matrices
};

// Where preload() and evict() move a key: a tier, and for the device tier one slot or all (-1).
struct tier_target {
  key_tier tier = key_tier::cold;
  int slot = -1;
  tier_target(key_tier t, int s = -1) : tier(t), slot(s) {}  // NOLINT(google-explicit-constructor)
};

struct key_entry_status {
  std::string circuit;
  std::string path;
  key_tier tier = key_tier::cold;  // the fastest tier holding it (device when on any slot)
  std::string tier_name;           // "cold", "warm", "hot(pageable)", "device:0", "device:0,device:1"
  std::string host_tier_name;      // "cold", "warm", "hot(pinned)": where its host copy is
  uint64_t file_bytes = 0;
  uint64_t mapped_bytes = 0;
  uint64_t owned_bytes = 0;
  uint64_t device_bytes = 0;  // over all its device copies
  uint32_t users = 0;         // proofs holding it (on any slot or none)
  bool loading = false;
  std::optional<wall_time> last_use;
  uint64_t loads = 0;  // times loaded from cold
  std::vector<key_device_copy_status> devices;
};

struct key_tier_status {
  key_tier tier = key_tier::cold;
  std::string name;
  bool present = false;
  uint64_t budget = 0;
  uint64_t used = 0;
  std::size_t keys = 0;  // a key on a device is counted in its host tier too
};

class key_manager;

// A proof's hold on a resident key. Move-only; the destructor releases it.
class key_lease {
 public:
  key_lease() = default;
  ~key_lease() { release(); }
  key_lease(key_lease&& o) noexcept { take(o); }
  key_lease& operator=(key_lease&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  key_lease(const key_lease&) = delete;
  key_lease& operator=(const key_lease&) = delete;

  const loaded_key& key() const noexcept { return *key_; }
  // The key's copy on the slot the lease was asked for; null when it has none there.
  const device_key* on_device() const noexcept { return dev_.get(); }
  // The slot of that copy; -1 without one.
  int slot() const noexcept { return dev_ ? slot_ : -1; }
  // Why a lease asked for a slot has no copy there (ok otherwise).
  const status& device_note() const noexcept { return note_; }
  explicit operator bool() const noexcept { return key_ != nullptr; }
  void release() noexcept;

 private:
  friend class key_manager;
  key_lease(key_manager* m, std::string id, std::shared_ptr<const loaded_key> k, int slot,
            std::shared_ptr<const device_key> dev, status note)
      : mgr_(m), id_(std::move(id)), key_(std::move(k)), slot_(slot), dev_(std::move(dev)), note_(std::move(note)) {}
  void take(key_lease& o) noexcept {
    mgr_ = std::exchange(o.mgr_, nullptr);
    id_ = std::move(o.id_);
    key_ = std::move(o.key_);
    slot_ = std::exchange(o.slot_, -1);
    dev_ = std::move(o.dev_);
    note_ = std::move(o.note_);
  }
  key_manager* mgr_ = nullptr;
  std::string id_;
  std::shared_ptr<const loaded_key> key_;
  int slot_ = -1;
  std::shared_ptr<const device_key> dev_;
  status note_;
};

class key_manager {
 public:
  // `alloc` backs the hot tier and must outlive the manager; `devices` is the device tier (none by
  // default). `memory`, when given, must outlive the manager: its host budget and the device
  // budgets of the slots' ordinals hold the keys' bytes (see the opening comment). With a
  // key_copy_dir every key is loaded from a private copy made there (loaded_key.hpp).
  key_manager(tier_budgets budgets, host_allocator& alloc, point_check check, device_tier devices = {},
              memory_budgets* memory = nullptr, std::string key_copy_dir = {});
  key_manager(const key_manager&) = delete;
  key_manager& operator=(const key_manager&) = delete;

  // A new cold key (replacing an unused entry of the same id).
  status add(const std::string& id, const std::string& path, const key_summary& summary);
  // Forgets a key; refused while a proof uses it.
  status remove(const std::string& id);

  // The key resident and referenced, and with slot >= 0 also resident on that device slot (see
  // above for when it cannot be); `load_seconds` gets the time spent loading and uploading (0 when
  // it was resident). Errors: unknown id, a load failure (the key stays cold), a key larger than
  // the warm budget, or cancellation while waiting for room.
  // With a host budget, a load takes its reservation out of `key_charge` when that holds at least
  // load_estimate() bytes, else waits for it in the budget's line.
  result<key_lease> acquire(const std::string& id, const cancel_token* cancel = nullptr,
                            double* load_seconds = nullptr, int slot = -1, reservation* key_charge = nullptr);
  // Host bytes a load of the key is admitted on: an upper bound from the file's size (the
  // mapping, the sections the reader copies, the constraint matrices built from the
  // coefficients; with a key_copy_dir nothing is copied, and the bound is the file once and its
  // coefficients twice, where it is twice the file without); the reservation shrinks to the
  // measured size once loaded. 0 when the key is resident or unknown.
  uint64_t load_estimate(const std::string& id) const;
  // The host budget's bytes the key holds now: 0 when it is cold or unknown.
  uint64_t host_held(const std::string& id) const;
  // While it lives, the host budget's eviction rounds run on the thread that made it leave key
  // `id` of manager `m` where it is (shed() skips it). For the engine's admission, which counts a
  // resident key as no load (load_estimate() 0) and then waits in the budget's line: a round of its
  // own that moved that key out would leave the job to load it again with room it never asked
  // for, waiting while it holds its working set. The budget runs a request's rounds on the
  // requesting thread (memory_budget.hpp), so the mark reaches that request's rounds and no
  // other's: a round run for a request ahead in the line may still move the key out. One per
  // thread at a time.
  class spared_key {
   public:
    spared_key(const key_manager& m, std::string id);
    ~spared_key();
    spared_key(const spared_key&) = delete;
    spared_key& operator=(const spared_key&) = delete;
  };
  // Loads a key up to `target` without using it: warm, hot, or the device tier (one slot, or every
  // slot). Errors as acquire's, and for the device tier: no device tier, a key larger than the
  // slot's budget, an upload failure.
  status preload(const std::string& id, tier_target target);
  // Moves a key down to `target` (cold drops it): below device, its device copies are dropped;
  // the device tier with a slot drops only that slot's copy. Refused while the copies it drops are
  // in use.
  status evict(const std::string& id, tier_target target = key_tier::cold);
  // "cold", "warm", "hot", "device" (every slot) or a slot's name ("device:0"); errors name the
  // accepted values.
  result<tier_target> parse_target(const std::string& name) const;

  // Hears how far the long steps of a key's load have come: the warm load's parts at their ends
  // (loaded_key::load_warm: "private copy" or "map", "point check", "matrices"), and "hot copy"
  // (the points copied into the hot tier's memory, its allocation included) every 2 s while it
  // runs and at its end. `seconds` since the step began. Called on the loading thread, for the
  // hot copy with the manager's lock held: it must not call back into the manager. Set before the
  // first load.
  using load_progress = std::function<void(const std::string& id, const char* step, uint64_t done, uint64_t total,
                                           double seconds)>;
  void set_load_progress(load_progress p) { progress_ = std::move(p); }

  bool resident(const std::string& id) const;
  // Whether the key has a copy on device slot `slot` (false for an unknown id or slot).
  bool resident_on(const std::string& id, int slot) const;
  std::vector<key_entry_status> entries() const;
  std::array<key_tier_status, 4> tiers() const;  // indexed by key_tier
  std::vector<key_slot_status> slots() const;    // the device tier, per slot

 private:
  friend class key_lease;
  struct entry {
    std::string path;
    key_summary summary;
    std::shared_ptr<const loaded_key> key;  // null: cold
    uint32_t users = 0;
    bool loading = false;
    std::optional<wall_time> last_use_wall;
    uint64_t use_seq = 0;  // LRU order
    uint64_t loads = 0;
    reservation host_res;  // its host bytes in the host budget (with one), less `lent`
    uint64_t lent = 0;     // of its mapping's charge, what device copies hold for their pinned points
  };

  void release(const std::string& id, int slot) noexcept;
  // In use: leased, loading, or uploading to some slot (nothing may move it).
  bool busy_locked(const std::string& id, const entry& e) const noexcept;
  uint64_t used_locked(key_tier t, const std::string& except = {}) const;
  uint64_t budget(key_tier t) const noexcept;
  bool make_room_locked(key_tier t, uint64_t bytes, const std::string& except);
  // Moves e down to `target`; a hot -> warm move may evict other warm keys, never `except`.
  status demote_locked(const std::string& id, entry& e, key_tier target, const std::string& except);
  // Cold -> warm for `id`, waiting for room; the lock is released while the file loads.
  status load_locked(std::unique_lock<std::mutex>& lk, const std::string& id, const cancel_token* cancel,
                     reservation* key_charge);
  // Makes e's host reservation equal its key's host bytes: returns what is above, takes what is
  // missing from free room only (false when there is none; the reservation then stays short).
  bool reconcile_locked(entry& e);
  // The host budget's evictor: unused keys down a tier, LRU first, until `missing` is freed.
  uint64_t shed(uint64_t missing);
  status promote_hot_locked(entry& e, const std::string& id, bool required);
  // `id` (resident on the host) onto `slot` through the device tier, waiting for room; the lock is
  // released while it uploads. Ok once the copy is there.
  status upload_locked(std::unique_lock<std::mutex>& lk, const std::string& id, int slot,
                       const cancel_token* cancel);
  // The key's host copy, for an upload (an error when it is gone or not on the host).
  result<std::shared_ptr<const loaded_key>> host_copy_locked(const std::string& id, const std::string& slot) const;
  std::string tier_name(key_tier t) const;

  const tier_budgets budgets_;
  host_allocator& alloc_;
  load_progress progress_;
  const point_check check_;
  const std::string copy_dir_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::map<std::string, entry> entries_;
  uint64_t seq_ = 0;
  memory_budget* host_budget_ = nullptr;
  device_key_tier devices_;  // shares m_ and cv_
  // Last: unregistered first.
  evictor_registration evictor_;
};

}  // namespace cuzk::engine
