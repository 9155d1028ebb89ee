// SPDX-License-Identifier: MIT OR Apache-2.0
// Submits of unknown outcome, settled by the housekeeping (see unconfirmed_submits.hpp).
#include "engine/unconfirmed_submits.hpp"

#include <utility>

namespace cuzk::engine {

job_id unconfirmed_submits::add(const job_record& rec, const insert_outcome& unknown, const begun_files& begun) {
  std::lock_guard lk(m_);
  job_id dropped = 0;
  if (kept_.size() >= max_kept) {
    dropped = kept_.front().unknown.id;
    kept_.erase(kept_.begin());
  }
  kept_.push_back({rec, unknown, begun});
  count_ = kept_.size();
  return dropped;
}

bool unconfirmed_submits::settle(job_store& store, const discard_fn& discard,
                                 const std::function<void(const std::string&)>& log) {
  // The store's calls run without the lock: one may wait for a server out of reach (its connect
  // timeout), and a submit that adds meanwhile must not wait for it.
  std::vector<kept> asking;
  {
    std::lock_guard lk(m_);
    asking.swap(kept_);
  }
  std::vector<kept> still;
  for (std::size_t i = 0; i < asking.size(); ++i) {
    kept& k = asking[i];
    auto fate = store.settle(k.rec, k.unknown);
    const std::string job = "job=" + std::to_string(k.unknown.id);
    if (!fate && fate.error().code() == errc::unavailable) {
      // Out of reach: the rest would each wait for a connection too. All are asked next round.
      for (; i < asking.size(); ++i) still.push_back(std::move(asking[i]));
      break;
    }
    if (!fate) {
      // A store that cannot be asked will not answer later either: the next start's sweep decides.
      log("engine: submit of unknown outcome, " + job + ", not settled: " + fate.error().to_string() +
          "; its files stay until the next start");
      continue;
    }
    if (*fate == submit_fate::unknown) {
      still.push_back(std::move(k));
      continue;
    }
    if (*fate == submit_fate::not_stored) discard(k.rec, k.begun);
    log("engine: submit of unknown outcome settled: " + job +
        (*fate == submit_fate::stored ? " was stored (its spooled witnesses stay with it)"
                                      : " was not stored (its spooled witnesses removed)"));
  }
  std::lock_guard lk(m_);
  // Those added while the store was asked come after those asked about.
  for (auto& k : kept_) still.push_back(std::move(k));
  if (still.size() > max_kept) still.erase(still.begin(), still.begin() + (still.size() - max_kept));
  kept_ = std::move(still);
  count_ = kept_.size();
  return kept_.empty();
}

}  // namespace cuzk::engine
