// SPDX-License-Identifier: MIT OR Apache-2.0
// What a proof job is: its id, priority, state machine, per-phase timings and result.
//
// A job is one circuit and one or more partitions: witnesses for the same circuit that are proved
// as one unit and returned as an ordered list (a Filecoin PoRep arrives as 10 partitions, a
// SnapDeals update as 16). The job moves through
//
//   queued -> loading_key -> synthesizing -> proving -> verifying -> done
//                                   \-> failed | cancelled (from any non-terminal state)
//
// and every phase it passes through is timed. These are plain values: the engine copies them out
// under its lock, so any thread may hold and read them.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace cuzk::engine {

// Assigned by the job store, increasing in submission order (FIFO order within a class).
using job_id = uint64_t;

using wall_clock = std::chrono::system_clock;
using wall_time = wall_clock::time_point;

// Higher runs first. The values are persisted: never renumber.
enum class priority : uint8_t { low = 0, normal = 1, high = 2, critical = 3 };
inline constexpr int priority_count = 4;

const char* priority_name(priority p) noexcept;  // "LOW", "NORMAL", "HIGH", "CRITICAL"
// Accepts the names above in any case; invalid_argument otherwise.
result<priority> priority_from_name(std::string_view name);

// Persisted: never renumber.
enum class job_state : uint8_t {
  queued = 0,
  loading_key = 1,
  synthesizing = 2,
  proving = 3,
  verifying = 4,
  done = 5,
  failed = 6,
  cancelled = 7,
};
const char* job_state_name(job_state s) noexcept;  // "queued", "loading_key", ...
constexpr bool is_terminal(job_state s) noexcept {
  return s == job_state::done || s == job_state::failed || s == job_state::cancelled;
}

// The phases every result reports, in seconds: the first six for every job (total is at least
// the sum of the five before it), then the parts of synthesis and prove that a GPU backend times
// (zero for a job proved on the CPU): the copy to the device that synthesis needs (the witness
// with synthesis on the device, a, b, c with synthesis on the host), the NTTs with the h
// kernel, each MSM, the CPU assembly, and the time the job waited for the device's kernel lock and
// held it (its share of the device's busy time). The GPU parts overlap each other and synthesis
// (gpu_prover.hpp), so they do not add up to prove. Then, for every job, the time it waited for
// memory budgets (reservation_wait; inside the phases it interrupted, not beside them): the host
// budget's admission, part of queue_wait, and on a GPU the device budget's grant of the worker's
// buffers, part of prove. Last, for every job, the time spent obtaining the partitions' witnesses
// (witness): a .wtns read and checked, or computed from input JSON by the circuit's wasm. It is its
// own phase because a witness computation can cost more than the proof, and folded into synthesis
// (a = A w, b = B w, c = a∘b) it hid where the time went. It is the reads' own durations summed
// over partitions; reads run beside each other and beside the previous batch's proof, so it is not
// among the phases that total bounds. Persisted by position: only ever append.
enum class phase : uint8_t {
  queue_wait = 0,
  key_load,
  synthesis,
  prove,
  verify,
  total,
  h2d,
  ntt,
  msm_a,
  msm_b1,
  msm_b2,
  msm_c,
  msm_h,
  assembly,
  gpu_wait,
  gpu_busy,
  reservation_wait,
  witness,
};
inline constexpr int phase_count = 18;
static_assert(phase_count == static_cast<int>(phase::witness) + 1, "phase_count counts every phase");
inline constexpr int summary_phase_count = 6;  // queue_wait .. total
constexpr bool is_gpu_phase(phase p) noexcept {
  return static_cast<int>(p) >= summary_phase_count && p != phase::reservation_wait && p != phase::witness;
}
const char* phase_name(phase p) noexcept;  // "queue_wait", "key_load", ..., "reservation_wait", "witness"

struct phase_times {
  std::array<double, phase_count> seconds{};
  double& operator[](phase p) noexcept { return seconds[static_cast<int>(p)]; }
  double operator[](phase p) const noexcept { return seconds[static_cast<int>(p)]; }
};

// One partition's witness: the bytes of a .wtns file, the path of one the engine can read, or
// circom input JSON (input_json) from which the engine computes the witness with the circuit's
// witness generator when the job runs (input_witness.hpp). Inline bytes (a .wtns or input JSON) are
// spooled to a file beside the job store before submit() returns, so they survive a restart; a
// path is used where it is and must stay readable until the job ends.
//
// Inline bytes are owned (from_bytes) or borrowed (borrow): the gRPC service lends the request's
// own field, which outlives the submit() it is passed to, so a witness of hundreds of MB is checked
// and spooled where it arrived instead of being copied first.
struct witness_input {
  std::vector<uint8_t> owned;
  std::span<const uint8_t> borrowed;
  std::string path;
  bool input_json = false;  // the inline bytes are circom input JSON, not a .wtns

  // The inline bytes, owned or borrowed; empty for a path.
  std::span<const uint8_t> inline_bytes() const noexcept {
    return owned.empty() ? borrowed : std::span<const uint8_t>(owned);
  }

  static witness_input from_bytes(std::vector<uint8_t> b) { return {std::move(b), {}, {}}; }
  // `b` must stay unchanged until submit() returns.
  static witness_input borrow(std::span<const uint8_t> b) { return {{}, b, {}}; }
  static witness_input from_path(std::string p) { return {{}, {}, std::move(p)}; }
  static witness_input from_input_json(std::string_view text) {
    return {std::vector<uint8_t>(text.begin(), text.end()), {}, {}, true};
  }
  // `text` must stay unchanged until submit() returns.
  static witness_input borrow_input_json(std::string_view text) {
    return {{}, {reinterpret_cast<const uint8_t*>(text.data()), text.size()}, {}, true};
  }
};

struct job_request {
  std::string circuit;
  std::vector<witness_input> partitions;
  // Unset: the circuit's default priority.
  std::optional<priority> prio;
  // Caller-chosen; a second submit with the same id returns the first job (idempotent retry).
  std::string request_id;
  // Reported as missed when the job ends after it; see scheduler.hpp for what is honoured.
  std::optional<wall_time> deadline;
};

// snarkjs's proof.json and public.json for one partition.
struct partition_proof {
  std::string proof_json;
  std::string public_json;
};

// What await() and status report for a job.
struct job_result {
  job_id id = 0;
  std::string request_id;
  std::string circuit;
  priority prio = priority::normal;
  job_state state = job_state::queued;
  uint32_t partitions = 0;
  // Set when state is failed (or cancelled: the reason).
  status error;
  // In partition order, when state is done.
  std::vector<partition_proof> proofs;
  phase_times times;
  // Where the partitions were proved: "cpu", or a device slot's name ("device:0"); empty until a
  // worker proved one. A GPU job that fell back to the CPU says "cpu".
  std::string ran_on;
  // Bytes of that copy (with times[h2d], the copy rate).
  double h2d_bytes = 0;
  bool deadline_missed = false;
  // How many times a worker started the job (more than 1 after a restart interrupted it).
  uint32_t attempts = 0;
  wall_time submitted_at{};
  std::optional<wall_time> deadline;
  std::optional<wall_time> finished_at;
};

// How a job that failed because the job store refused its result for good says so (the message
// begins with it). Such a job is not the request's fault: a submit of its request id again proves
// it again (engine::submit), as does a job failed so by an older daemon, whose message began alike.
inline constexpr const char* result_not_stored = "the result could not be stored";
inline bool failed_for_store_fault(const job_result& r) {
  return r.state == job_state::failed && r.error.message().starts_with(result_not_stored);
}

// Milliseconds since the Unix epoch, the persisted form of a wall_time. from_unix_ms saturates at
// the range a wall_time holds (about the years 1678 to 2262 with libstdc++'s nanosecond clock): a
// client's deadline_unix_ms or a stored value can be any int64_t, and converting one past that
// range to the clock's unit overflows (undefined behaviour).
int64_t to_unix_ms(wall_time t) noexcept;
wall_time from_unix_ms(int64_t ms) noexcept;

}  // namespace cuzk::engine
