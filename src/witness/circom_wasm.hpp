// SPDX-License-Identifier: MIT OR Apache-2.0
// circom's witness code, compiled (wasm_compiler.hpp) and loaded: the witness of an input, exactly
// as circom's witness_calculator.js and `snarkjs wtns calculate` compute it.
//
// The protocol is circom 2's wasm interface, driven as witness_calculator.js drives it: init(0)
// (snarkjs leaves the sanity checks off), then for each input signal getInputSignalSize(hash) to
// check its size and setInputSignal(hash, i) per value (written first to the shared memory, n32
// words), which runs the circuit once the last input arrives; then getWitness(i) per wire. A
// failure inside the wasm (a failed assert, a signal set twice) comes back as circom words it:
// the error code's sentence and the template and line the wasm printed (circom_wasm_glue.c).
//
// The field arithmetic runs natively where cuzk has the circuit's field (native_field.hpp), the
// wasm's own otherwise. Where the field is native, the first calculation also records the
// circuit's witness graph (witness_graph.hpp), kept beside the compiled object; later
// calculations replay it, many times faster, and fall back to the wasm for an input that takes
// another path through the witness code. The witness is the same either way.
//
// Thread safety: a generator may be shared, and calculations on several threads run at once, each
// in an instance of its own (the compiled runtime keeps its state per thread: generated_c.hpp).
// A calculation stops at its deadline or when its stop token is asked to stop: circom's code
// looks at the stop flag in every branch, loop test and field operation.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "base/result.hpp"
#include "formats/wtns_writer.hpp"
#include "witness/calculation_memory.hpp"
#include "witness/circom_input.hpp"
#include "witness/witness_graph.hpp"

namespace cuzk::witness {

// The compiled object's functions (circom_wasm_glue.c), looked up at load.
struct glue_api;

struct calculated_witness {
  uint32_t n32 = 0;        // 32-bit words per value
  std::size_t wires = 0;   // values
  // The .wtns file, as snarkjs writes it: its header, then the values, n32 little-endian words
  // each, w[0] = 1. The calculation writes the values in place (formats/wtns_writer.hpp).
  std::vector<uint8_t> wtns;
  std::string log;         // what the circuit's log() calls printed, one line each
  bool by_graph = false;   // replayed from the witness graph, not computed by the wasm
  std::size_t wire_count() const noexcept { return wires; }
  std::span<const uint32_t> words() const noexcept {
    return {reinterpret_cast<const uint32_t*>(wtns.data() + formats::wtns_values_offset(4 * std::size_t{n32})), wires * n32};
  }
  std::span<uint32_t> words() noexcept {
    return {reinterpret_cast<uint32_t*>(wtns.data() + formats::wtns_values_offset(4 * std::size_t{n32})), wires * n32};
  }
};

// What bounds one calculation.
struct calculation_limits {
  std::optional<std::chrono::steady_clock::time_point> deadline;  // deadline_exceeded after it
  std::stop_token stop;                                          // cancelled once stop is requested
  // Asked every few milliseconds while the calculation runs; true: cancelled. For callers whose
  // stop is a flag of their own (a job's cancel token).
  std::function<bool()> stop_polled;
  bool native_field = true;  // false: the wasm's own arithmetic (to compare the two)
  // false: never the witness graph, always the wasm (to compare the two). The graph needs the
  // native field.
  bool graph = true;
  // Where the graph is recorded, when this calculation is the first: by this calculation itself
  // (a few times the wasm's time; a command whose process ends with it), or beside it, on a thread
  // of the generator's from a copy of these inputs, while this one runs the wasm at its own speed
  // (the daemon: no job waits for a recording).
  enum class recording { in_line, beside } graph_recording = recording::in_line;
  // The estimate (witness_generator::memory_needed) by which the caller reserved this
  // calculation's memory: it then does nothing that estimate did not count (no replay of a graph
  // recorded since, no recording the estimate left out; a recording where and as it says). Unset:
  // as the generator stands.
  std::optional<calculation_memory> within;
  // Asked for `bytes` more memory as the recording's values grow (calculation_memory.hpp), on the
  // thread that records; false: there is none, and the recording ends without a graph (a later
  // calculation records). Kept by a recording beside the calculation until that ends, with
  // whatever it holds. Empty: no limit.
  std::function<bool(uint64_t bytes)> recording_memory;
  // Asked for `bytes` more memory where the wasm's linear memory grows past what `within` counted
  // (circom's stack beyond stack_growth_pages), on the calculating thread; false: the grow fails
  // with circom's "Not enough memory." and a note naming the budget, resource_exhausted (a failure
  // of the circuit's own code is failed_precondition). Empty, or without `within`, the linear
  // memory is never capped: no budget, as the `cuzk wtns calculate` command (as snarkjs).
  std::function<bool(uint64_t bytes)> memory_growth;
  // For tests: given the witness a recording's graph replayed, before it is checked against the
  // wasm's (to damage it, as a wrong graph would).
  std::function<void(std::span<uint32_t>)> replay_of_recording;
};

// Where a generator stands with its witness graph (witness_graph.hpp).
enum class graph_state {
  none_yet,  // the next calculation records one
  recording, // a calculation is recording it
  ready,     // calculations replay it, and fall back to the wasm for inputs it does not fit
  refused,   // this circuit's witness code cannot be replayed (graph_reason() says why)
};

// The wasm's linear memory growing past what a calculation's estimate counted (instance_pages):
// granted by limits.memory_growth, `bytes_per_page` a page. The glue calls ask() before a grow.
struct linear_growth {
  const calculation_limits* limits = nullptr;
  uint32_t counted_pages = 0;  // counted by the estimate, or granted since
  uint64_t bytes_per_page = 0;
  bool refused = false;  // the budget had no room for a grow
  static int ask(void* context, uint32_t pages) noexcept;
};

class witness_generator {
 public:
  // Loads a compiled generator; `source` (the .wasm's name) prefixes every message. `graph` says
  // how a witness graph in the cache is held (witness_graph::load): copied by a process that keeps
  // the generator, mapped by a command that calculates once.
  static result<std::shared_ptr<const witness_generator>> load(const std::string& library, const std::string& source,
                                                               witness_graph::holding graph = witness_graph::holding::copy);
  ~witness_generator();
  witness_generator(const witness_generator&) = delete;
  witness_generator& operator=(const witness_generator&) = delete;

  // The circuit's prime, n32 little-endian 32-bit words.
  const std::vector<uint32_t>& prime() const noexcept { return prime_; }
  uint32_t witness_size() const noexcept { return witness_size_; }
  const std::string& source() const noexcept { return source_; }

  // The witness of these inputs (parse_circom_input with prime()); `input_source` names the input
  // file in messages. invalid_argument for an input the circuit does not have or one with the
  // wrong number of values, failed_precondition for inputs left unset or a failure inside the
  // circuit (circom's message).
  // deadline_exceeded or cancelled where `limits` stopped it.
  result<calculated_witness> calculate(std::span<const input_signal> inputs, const std::string& input_source,
                                       const calculation_limits& limits = {}) const;

  // True where the circuit's arithmetic runs natively (bn254's and bls12-381's scalar fields).
  bool native_field() const noexcept { return native_ != nullptr; }
  const std::string& library() const noexcept { return library_; }

  graph_state graph() const;
  // Why the graph was refused ("" otherwise).
  std::string graph_reason() const;

  // What the generator knows of its circuit's sizes (calculation_memory.hpp).
  circuit_sizes sizes() const noexcept;
  // The memory a calculation under `limits` of an input of `input_json_bytes` bytes of JSON would
  // hold now, as the generator stands (a replay, a recording or the wasm): an upper bound
  // (calculation_memory.hpp). Pass it back as limits.within so that the calculation keeps to it.
  calculation_memory memory_needed(uint64_t input_json_bytes, const calculation_limits& limits = {}) const;

 private:
  witness_generator() = default;
  // The calculation by the wasm, recording the graph where `record`.
  result<calculated_witness> calculate_by_wasm(std::span<const input_signal> inputs, const std::string& input_source,
                                               const calculation_limits& limits, bool record) const;
  // The witness by the graph, or nullopt where these inputs are not the graph's.
  result<std::optional<calculated_witness>> calculate_by_graph(const witness_graph& g, std::span<const input_signal> inputs,
                                                               const calculation_limits& limits) const;
  // Whether this calculation records the graph (then graph() is `recording` until it ends).
  bool start_recording() const;
  void recorded(result<witness_graph> g) const;
  bool take_recorded_graph(witness_graph::holding how);
  void load_graph(witness_graph::holding how);
  // Instantiates the module; nonzero where it trapped. `growth`: asked before the linear memory
  // grows (linear_growth: past instance_pages(sizes()), charged as it grows); null: never asked.
  int instantiate(void* instance, linear_growth* growth = nullptr) const;
  // The words added to circom's "Not enough memory.", saying where the cap is.
  std::string memory_refused_note(uint32_t pages) const;

  void* handle_ = nullptr;
  std::unique_ptr<glue_api> api_;
  const void* native_ = nullptr;  // the native_field_ops of the prime, or null
  std::string source_, library_;
  std::vector<uint32_t> prime_;
  uint32_t witness_size_ = 0;
  uint32_t declared_pages_ = 0, declared_max_pages_ = 65536;  // the module's linear memory
  bool traceable_ = false;  // the compiled code tells a trace all it does (generated_c.hpp)
  mutable std::mutex graph_mutex_;
  mutable graph_state graph_state_ = graph_state::none_yet;
  mutable std::shared_ptr<const witness_graph> graph_;
  mutable std::string graph_reason_;
  // The recording beside a calculation (calculation_limits::recording::beside); asked to stop and
  // joined first when the generator goes.
  mutable std::jthread recording_;
};

}  // namespace cuzk::witness
