// SPDX-License-Identifier: MIT OR Apache-2.0
// Submits whose job store could not say whether it stored them (insert_effect::outcome_unknown:
// a COMMIT whose reply was lost, docs/HARDENING.md, finding 34), kept with the spool files their
// rows would name until the store can say.
//
// Such a submit keeps its files: deleting them under a row that exists fails the job on every node.
// Left alone, those of a submit that was in fact not stored stayed until the daemon's next start,
// whose sweep removes files no row names; a database out of reach for long, with clients retrying,
// could fill the spool meanwhile. The engine's housekeeping asks the store again (job_store::settle)
// each round while any is kept: not stored removes the files, stored leaves them to the row, and an
// answer still unknown keeps them for the next round.
//
// Thread safety: add() from any thread; settle() from one thread at a time (the housekeeping's),
// which calls the store without the object's lock held, so an add() never waits for the store.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "engine/job_source.hpp"
#include "engine/jobs/job_store.hpp"

namespace cuzk::engine {

class unconfirmed_submits {
 public:
  // The largest number kept: past it the oldest is let go (its files stay for the next start's
  // sweep), so that a store that never answers cannot grow the list without end.
  static constexpr std::size_t max_kept = 4096;

  // `rec` (its spooled witnesses, with the id the insert gave) and the files only begun for it.
  // The id of the oldest one let go to make room (0: none), for the caller to log.
  job_id add(const job_record& rec, const insert_outcome& unknown, const begun_files& begun);
  // Whether any is kept: the housekeeping's retry period applies while one is.
  bool pending() const noexcept { return count_.load() > 0; }
  std::size_t size() const noexcept { return count_.load(); }
  // The files of a submit found not stored: its record and the files only begun for it.
  using discard_fn = std::function<void(const job_record&, const begun_files&)>;
  // One look for each kept submit, until the store is out of reach (errc::unavailable: the rest
  // wait for the next round, as each would wait for a connection); true once none is left.
  // `discard` takes the files of each found not stored; `log` gets a line for each settled or let go.
  bool settle(job_store& store, const discard_fn& discard, const std::function<void(const std::string&)>& log);

 private:
  struct kept {
    job_record rec;
    insert_outcome unknown;
    begun_files begun;
  };
  std::mutex m_;
  std::vector<kept> kept_;
  std::atomic<std::size_t> count_{0};
};

}  // namespace cuzk::engine
