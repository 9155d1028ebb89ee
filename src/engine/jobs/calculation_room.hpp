// SPDX-License-Identifier: MIT OR Apache-2.0
// A witness calculation's memory in the host budget: what one calculation of a circuit's generator
// holds while it runs (witness/calculation_memory.hpp: its .wtns, the wasm's linear memory or the
// replay's slots, the parsed input), reserved before it starts and returned when it ends, also on
// an error, a cancel or the time limit. So that no number of calculations at once takes the host
// past the budget the operator set (docs/witness.md, 'A calculation's memory in the host budget').
//
// Where the memory comes from:
//   - a worker's calculation: from its batch's calculation share, which admission reserved with
//     the batch's working set (engine::admit: waiting in line like the rest of it, and failing the
//     job where it can never fit, naming the circuit, the bytes and the budget). A worker never
//     waits for memory while it holds some: the share is there when its calculation starts.
//     Calculations of one job's partitions run side by side where spare room holds another;
//     otherwise they wait their turn for the share (calculation_share below).
//   - a witness thread's calculation: from spare room only, without waiting or evicting
//     (witness_ahead.hpp): where there is none, the thread starts nothing and looks again later.
//     Its growth too (calculation_growth::speculative): refused, the worker computes it.
//   - the recording of a circuit's first calculation (beside it, on the generator's thread): from
//     spare room only, whoever computes. Where there is none the calculation does not record and a
//     later one does. Its reservation stays with the recording until it ends, and grows from spare
//     room as the trace's values do; a recording that finds none stops without a graph.
// The calculation keeps to the estimate its memory was reserved by (calculation_limits::within):
// no replay of a graph recorded since, no recording that was not counted.
//
// Thread safety: calculation_room is owned by one thread at a time (move it to the calculation's);
// calculation_share's methods from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

#include "base/result.hpp"
#include "engine/jobs/cancel_token.hpp"
#include "engine/memory/memory_budget.hpp"
#include "witness/circom_wasm.hpp"

namespace cuzk::engine {

// The estimate for a calculation of `gen` on an input of `input_json_bytes` bytes, as the daemon
// runs it (a circuit's first calculation records beside it).
witness::calculation_memory calculation_estimate(const witness::witness_generator& gen, uint64_t input_json_bytes);

// The size of the input JSON at `path` (the spool's file); 0 where it cannot be read (the
// calculation then fails reading it).
uint64_t input_json_size(const std::string& path);

// What acquire() messages say a calculation's memory is for.
std::string calculation_purpose(const std::string& what, const witness::witness_generator& gen,
                                const witness::calculation_memory& m);

// How a calculation's linear memory past its estimate is asked for (calculation_room::hand_to).
enum class calculation_growth {
  // A worker's: ahead of the line, asking the evictors where there is no spare room (its job
  // fails where it is refused, and what the evictors free is cheaper to redo than the job).
  worker,
  // A witness thread's, computed ahead on speculation: in line without waiting or evicting, so it
  // never takes memory the requests in line wait for; refused, it leaves the partition to its
  // worker (witness_ahead.hpp).
  speculative,
};

struct calculation_room {
  witness::calculation_memory planned;  // what the reservations below hold
  reservation calculation;              // planned.calculation: until the calculation returns
  reservation recording;                // planned.recording: with the recording until it ends
  bool from_share = false;              // `calculation` is a calculation_share's, to give back
  calculation_growth growth = calculation_growth::worker;

  // `limits` set to keep to the room: within = planned, and where it records, the recording's
  // reservation handed to it (held by limits.recording_memory, and so by the recording beside
  // the calculation until that ends), its values' memory asked for from its budget's spare room.
  // The linear memory past `planned` is added to `calculation` as it grows (limits.memory_growth,
  // on the calculating thread, as `growth` says): the room stays where it is, and `limits` goes,
  // before it returns.
  void hand_to(witness::calculation_limits& limits, const std::string& purpose);
};

// The recording's part of `room.planned` reserved from spare room (no waiting, no eviction), or,
// where there is none, the room planned without it: the calculation runs the wasm alone and a
// later one records.
void reserve_recording(calculation_room& room, memory_budget& host, const std::string& purpose);

// A calculation's whole room from spare room (no waiting, no eviction): the witness threads' rule,
// and their growth rule (calculation_growth::speculative). `beside` bytes more (the witness the
// calculation will make) are taken in the same acquire and held in room.calculation, for the
// caller to split() off: a look that finds no room for both takes nothing, not even for a moment,
// and wakes no waiter by handing back what it took.
// Errors as memory_budget::acquire's (`why`: too_large where it can never fit, timed_out where
// there is no room now).
result<calculation_room> spare_calculation_room(const witness::witness_generator& gen, uint64_t input_json_bytes,
                                                memory_budget& host, const std::string& purpose, refusal* why,
                                                uint64_t beside = 0);

// One batch's calculations on its worker, from the share admission reserved for one of them.
// take() gives a calculation its memory: the share where it is free and large enough, else spare
// room (no waiting: another partition's calculation holds the share), else the share once it is
// back; the room's recording part from spare room. A calculation larger than the whole share
// (never where admission sized it) gets spare room, after asking the evictors, or fails at once:
// its worker holds its job's memory, so it never waits in line for more. Once the batch has no calculation left
// (done()), the share goes back to the budget: a job whose witnesses were computed ahead, or
// whose calculations are over, holds none through its proof.
class calculation_share {
 public:
  explicit calculation_share(memory_budget& host) : host_(host) {}
  calculation_share(const calculation_share&) = delete;
  calculation_share& operator=(const calculation_share&) = delete;

  // The room for a calculation of `gen` on `input_json_bytes` bytes of input, its calculation part
  // from the share or spare room; waits for the share until `cancel`. Planned as the wasm alone
  // where the estimate now is larger than the share (a graph whose replay calls the wasm, recorded
  // since admission). A batch without a share (its jobs had no input JSON, or no generator, at
  // admission) has spare room or fails, resource_exhausted, naming the bytes and the share.
  result<calculation_room> take(const witness::witness_generator& gen, uint64_t input_json_bytes,
                                const cancel_token& cancel, const std::string& what);
  // The room's calculation part, once its calculation returned: what the share lent back to the
  // share (or to the budget after done()); spare room's, and whatever the linear memory grew past
  // the estimate, to the budget.
  void give_back(calculation_room& room);
  // Admission's share for a job of the batch, added to the batch's.
  void add(reservation share);
  // No calculation of the batch is left: the share goes back to the budget once it is free.
  void done();

 private:
  memory_budget& host_;
  std::mutex m_;
  std::condition_variable cv_;
  reservation share_;   // what of it no calculation holds
  uint64_t total_ = 0;  // its whole size, lent or not
  bool lent_ = false;   // a calculation holds it
  bool done_ = false;
};

}  // namespace cuzk::engine
