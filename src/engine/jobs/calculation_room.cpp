// SPDX-License-Identifier: MIT OR Apache-2.0
// A witness calculation's memory in the host budget (see calculation_room.hpp).
#include "engine/jobs/calculation_room.hpp"

#include <chrono>
#include <filesystem>
#include <memory>
#include <utility>

namespace cuzk::engine {

namespace {

using witness::calculation_kind;
using witness::calculation_memory;

// How often a calculation waiting for its batch's share looks at its job's cancel.
constexpr std::chrono::milliseconds cancel_poll{10};

acquire_options spare_only(const std::string& purpose, refusal* why) {
  return {nullptr, std::chrono::milliseconds(0), purpose, false, why};
}

// `m` without its recording: the wasm alone, as much memory for the calculation itself.
calculation_memory without_recording(calculation_memory m) {
  if (m.records()) m.kind = calculation_kind::wasm;
  m.recording = 0;
  return m;
}

}  // namespace

witness::calculation_memory calculation_estimate(const witness::witness_generator& gen, uint64_t input_json_bytes) {
  witness::calculation_limits limits;
  limits.graph_recording = witness::calculation_limits::recording::beside;  // input_witness.cpp's
  return gen.memory_needed(input_json_bytes, limits);
}

uint64_t input_json_size(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<uint64_t>(size);
}

std::string calculation_purpose(const std::string& what, const witness::witness_generator& gen,
                                const witness::calculation_memory& m) {
  const char* how = m.kind == calculation_kind::replay ? "a replay of its witness graph, or its wasm"
                    : m.records()                      ? "its wasm, and the recording of its witness graph"
                                                       : "its wasm";
  return what + ": the witness calculation (" + how + ", " + gen.source() + ")";
}

void calculation_room::hand_to(witness::calculation_limits& limits, const std::string& purpose) {
  limits.within = planned;
  // The linear memory past the estimate (circom's stack), charged as it grows to this room's
  // reservation, which the calculation holds until it returns, never waiting. A worker's ahead of
  // whoever waits in line, with the evictors: a running calculation refused where there is room,
  // or where a cache could make some, would fail its job only because others wait, and one that
  // waited might wait for its own job's memory. A witness thread's in line, from spare room only:
  // speculative work takes nothing the line waits for, and its worker computes what it could not.
  reservation* own = &calculation;
  const bool worker = growth == calculation_growth::worker;
  limits.memory_growth = [own, purpose, worker](uint64_t bytes) {
    // Named: `now` holds a view of it.
    const std::string what = purpose + ": the wasm's linear memory beyond its estimate";
    acquire_options now = spare_only(what, nullptr);
    now.ahead_of_line = worker;
    now.evict = worker;
    return own->grow(bytes, now).is_ok();
  };
  if (!planned.records()) return;
  // Held by the callback: the recording beside the calculation keeps a copy of it until it ends,
  // and grows it through the reservation, which keeps the budget's state alive however long the
  // recording outlives the engine's objects.
  auto held = std::make_shared<reservation>(std::move(recording));
  limits.recording_memory = [held, purpose](uint64_t bytes) {
    return held->grow(bytes, spare_only(purpose + ": the recording's values", nullptr)).is_ok();
  };
}

void reserve_recording(calculation_room& room, memory_budget& host, const std::string& purpose) {
  if (!room.planned.records()) return;
  auto r = host.acquire(room.planned.recording, spare_only(purpose + ": recording its witness graph", nullptr));
  if (r) {
    room.recording = std::move(r).value();
    return;
  }
  room.planned = without_recording(room.planned);
}

result<calculation_room> spare_calculation_room(const witness::witness_generator& gen, uint64_t input_json_bytes,
                                                memory_budget& host, const std::string& purpose, refusal* why,
                                                uint64_t beside) {
  calculation_room room;
  room.planned = calculation_estimate(gen, input_json_bytes);
  const std::string what =
      calculation_purpose(purpose, gen, room.planned) + (beside != 0 ? ", with the witness it makes" : "");
  auto r = host.acquire(room.planned.calculation + beside, spare_only(what, why));
  if (!r) return r.error();
  room.calculation = std::move(r).value();
  room.growth = calculation_growth::speculative;
  reserve_recording(room, host, purpose);
  return room;
}

result<calculation_room> calculation_share::take(const witness::witness_generator& gen, uint64_t input_json_bytes,
                                                 const cancel_token& cancel, const std::string& what) {
  calculation_room room;
  room.planned = calculation_estimate(gen, input_json_bytes);
  std::unique_lock lk(m_);
  if (total_ != 0 && room.planned.calculation > total_) {
    // A graph recorded since admission, whose replay needs more than the wasm: the wasm computes it.
    const auto wasm = witness::calculation_memory_bound(gen.sizes(), calculation_kind::wasm, {}, input_json_bytes);
    if (wasm.calculation <= total_) room.planned = wasm;
  }
  const uint64_t need = room.planned.calculation;
  const std::string purpose = calculation_purpose(what, gen, room.planned);
  if (need > total_) {
    // No share could hold it: spare room, after asking the evictors, or a clear failure. Never a
    // wait in the budget's line, as this worker holds its job's memory and key, which whoever is
    // first in line may be waiting for.
    const uint64_t share = total_;
    lk.unlock();
    acquire_options now = spare_only(purpose, nullptr);
    now.evict = true;
    auto spare = host_.acquire(need, now);
    if (!spare)
      return status(errc::resource_exhausted,
                    what + ": the witness calculation needs " + describe_bytes(need) + ", more than its batch's " +
                        "calculation share (" + describe_bytes(share) + ", reserved at admission), and a " +
                        "worker does not wait for memory while it holds its job's: " + spare.error().message());
    room.calculation = std::move(spare).value();
    reserve_recording(room, host_, what);
    return room;
  }
  for (;;) {
    if (cancel.cancelled())
      return status(errc::cancelled, what + ": the witness calculation was not started: the job is stopping");
    if (!lent_) {
      lent_ = true;
      room.calculation = share_.split(need);
      room.from_share = true;
      break;
    }
    // The share is another calculation's: spare room lets this one run now. A poll, which neither
    // counts as a refusal nor wakes the budget's line.
    if (auto spare = host_.try_now(need)) {
      room.calculation = std::move(*spare);
      break;
    }
    cv_.wait_for(lk, cancel_poll);  // for the share to come back, or spare room
  }
  lk.unlock();
  reserve_recording(room, host_, what);
  return room;
}

void calculation_share::give_back(calculation_room& room) {
  if (!room.from_share) {
    room.calculation.reset();
    return;
  }
  {
    std::lock_guard lk(m_);
    lent_ = false;
    room.from_share = false;
    if (done_) {
      room.calculation.reset();
      share_.reset();
      total_ = 0;
    } else {
      // The share takes back what it lent, and no more: the linear memory the calculation grew
      // past its estimate (calculation_room::hand_to) goes back to the budget, or the share would
      // hold it until the batch ends and lend a later calculation more than it counts (total_).
      const uint64_t lent = total_ - share_.bytes();
      room.calculation.release(room.calculation.bytes() > lent ? room.calculation.bytes() - lent : 0);
      (void)share_.absorb(std::move(room.calculation));
    }
  }
  cv_.notify_all();
}

void calculation_share::add(reservation share) {
  std::lock_guard lk(m_);
  if (!share) return;
  total_ += share.bytes();
  (void)share_.absorb(std::move(share));
}

void calculation_share::done() {
  std::lock_guard lk(m_);
  done_ = true;
  if (lent_) return;  // give_back() returns it
  share_.reset();
  total_ = 0;
}

}  // namespace cuzk::engine
