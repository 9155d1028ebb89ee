// The SRS manager: which proving keys are resident in which tier, within a byte budget per tier.
//
// Keys start cold (registered, nothing mapped). acquire() makes a key resident for a proof, loading
// it when cold (warm first, then hot when the hot budget has room), and hands back a key_lease: an
// RAII reference count that keeps the key from being evicted or moved while a proof uses it.
// When a tier is over budget, the least recently used keys that nobody uses move down one tier
// (hot -> warm -> cold) until the new key fits; a load that cannot fit because every other key in
// the tier is in use waits for a lease to end (checking the job's cancel token). preload() and
// evict() move a key up or down on request; evict() refuses a key in use.
//
// Accounting is truthful: a warm key counts its mapped file plus what it owns (misaligned sections
// the zkey reader copied, the constraint matrices); a hot key counts its copy and the matrices; a
// key's bytes are known only once it is loaded, so a load is admitted on the file's size and the
// budget is enforced again with the measured size (a key whose matrices are larger than expected
// can leave a tier briefly over budget when nothing else can be evicted; status shows it).
// The hot tier's name says what its memory is: "hot(pageable)" with the pageable allocator,
// "hot(pinned)" once the GPU layer supplies a pinned one. The device tier needs the GPU backend;
// without one its budget is 0 and status reports it absent.
//
// Thread safety: every method from any thread; one mutex, held while choosing and while moving a
// key down a tier, released while a key loads from disk (other keys stay usable meanwhile).
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "engine/cancel_token.hpp"
#include "engine/host_allocator.hpp"
#include "engine/job.hpp"
#include "engine/key_summary.hpp"
#include "engine/loaded_key.hpp"

namespace cuzk::engine {

struct tier_budgets {
  uint64_t device = 0;         // bytes of VRAM for keys; 0 = no device tier
  uint64_t hot = 0;            // bytes of host memory for fully loaded keys; 0 = keys stay warm
  uint64_t warm = UINT64_MAX;  // bytes of mapped files (page cache) plus matrices
};

struct srs_entry_status {
  std::string circuit;
  std::string path;
  key_tier tier = key_tier::cold;
  std::string tier_name;  // "cold", "warm", "hot(pageable)", ...
  uint64_t file_bytes = 0;
  uint64_t mapped_bytes = 0;
  uint64_t owned_bytes = 0;
  uint32_t users = 0;
  bool loading = false;
  std::optional<wall_time> last_use;
  uint64_t loads = 0;  // times loaded from cold
};

struct srs_tier_status {
  key_tier tier = key_tier::cold;
  std::string name;
  bool present = false;
  uint64_t budget = 0;
  uint64_t used = 0;
  std::size_t keys = 0;
};

class srs_manager;

// A proof's hold on a resident key. Move-only; the destructor releases it.
class key_lease {
 public:
  key_lease() = default;
  ~key_lease() { release(); }
  key_lease(key_lease&& o) noexcept : mgr_(o.mgr_), id_(std::move(o.id_)), key_(std::move(o.key_)) {
    o.mgr_ = nullptr;
  }
  key_lease& operator=(key_lease&& o) noexcept {
    if (this != &o) {
      release();
      mgr_ = o.mgr_;
      id_ = std::move(o.id_);
      key_ = std::move(o.key_);
      o.mgr_ = nullptr;
    }
    return *this;
  }
  key_lease(const key_lease&) = delete;
  key_lease& operator=(const key_lease&) = delete;

  const loaded_key& key() const noexcept { return *key_; }
  explicit operator bool() const noexcept { return key_ != nullptr; }
  void release() noexcept;

 private:
  friend class srs_manager;
  key_lease(srs_manager* m, std::string id, std::shared_ptr<const loaded_key> k)
      : mgr_(m), id_(std::move(id)), key_(std::move(k)) {}
  srs_manager* mgr_ = nullptr;
  std::string id_;
  std::shared_ptr<const loaded_key> key_;
};

class srs_manager {
 public:
  // `alloc` backs the hot tier and must outlive the manager.
  srs_manager(tier_budgets budgets, host_allocator& alloc, point_check check);
  srs_manager(const srs_manager&) = delete;
  srs_manager& operator=(const srs_manager&) = delete;

  // A new cold key (replacing an unused entry of the same id).
  status add(const std::string& id, const std::string& path, const key_summary& summary);
  // Forgets a key; refused while a proof uses it.
  status remove(const std::string& id);

  // The key resident and referenced; `load_seconds` gets the time spent loading (0 when it was
  // resident). Errors: unknown id, a load failure (the key stays cold), a key larger than the
  // warm budget, or cancellation while waiting for room.
  result<key_lease> acquire(const std::string& id, const cancel_token* cancel = nullptr,
                            double* load_seconds = nullptr);
  // Loads a key up to `target` (warm or hot) without using it.
  status preload(const std::string& id, key_tier target);
  // Moves a key down to `target` (cold drops it); refused while in use.
  status evict(const std::string& id, key_tier target = key_tier::cold);

  bool resident(const std::string& id) const;
  std::vector<srs_entry_status> entries() const;
  std::array<srs_tier_status, 4> tiers() const;  // indexed by key_tier

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
  };

  void release(const std::string& id) noexcept;
  uint64_t used_locked(key_tier t, const std::string& except = {}) const;
  uint64_t budget(key_tier t) const noexcept;
  bool make_room_locked(key_tier t, uint64_t bytes, const std::string& except);
  status demote_locked(entry& e, key_tier target);
  // Cold -> warm for `id`, waiting for room; the lock is released while the file loads.
  status load_locked(std::unique_lock<std::mutex>& lk, const std::string& id, const cancel_token* cancel);
  status promote_hot_locked(entry& e, const std::string& id, bool required);
  std::string tier_name(key_tier t) const;

  const tier_budgets budgets_;
  host_allocator& alloc_;
  const point_check check_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::map<std::string, entry> entries_;
  uint64_t seq_ = 0;
};

}  // namespace cuzk::engine
