// SPDX-License-Identifier: MIT OR Apache-2.0
// A partition given as circom input JSON: its witness computed by the circuit's witness generator
// (witness/, circom's .wasm compiled once to native code) when the job runs, then read like any
// .wtns.
//
// The generator is compiled and loaded when the circuit is registered (load_circuit_generator), so
// that a wasm that is not one, or one for another circuit, is refused to the one registering it,
// and every job of the circuit reuses the loaded object. The input is parsed at submit
// (check_input_json: a JSON error or a value that is not a field element is the client's, named
// at once) and again when the job runs, where the circuit itself runs: a failed assert or a missing
// signal fails that job with circom's message.
//
// Thread safety: free functions; calculations of one generator run at once on several threads
// (circom_wasm.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.hpp"
#include "engine/jobs/calculation_room.hpp"
#include "engine/jobs/request_checks.hpp"
#include "engine/jobs/witness.hpp"
#include "engine/jobs/key_summary.hpp"
#include "witness/circom_wasm.hpp"

namespace cuzk::engine {

using generator_ptr = std::shared_ptr<const witness::witness_generator>;

// The wasm at `wasm_path` compiled (or found in `cache_dir`) and loaded, checked against the
// circuit's key: the same prime (curve) and as many wires as the key's nVars. Errors name the wasm.
result<generator_ptr> load_circuit_generator(const std::string& wasm_path, const key_summary& key,
                                             const std::string& cache_dir);

// invalid_argument naming `what` ("partition 0: input JSON") for a document circom's rules refuse.
status check_input_json(const witness::witness_generator& gen, std::string_view json, const std::string& what);

// The witness of the input JSON in the file at `path` (the engine's spool), checked against the key
// as a client's .wtns is. failed_precondition with circom's message for a failure inside the circuit;
// deadline_exceeded or cancelled where `limits` stopped it.
result<any_witness> witness_from_input_json(const witness::witness_generator& gen, const std::string& path,
                                            const key_summary& key, const std::string& what,
                                            const witness::calculation_limits& limits = {});

// A job's partition q given as input JSON, spooled at `path`: its witness by the circuit's generator
// (null: failed_precondition, the generator is not loaded), stopped at `time_limit` (the message
// names witness_time_limit_s) or once `stop` says so. Errors say "partition q: input JSON", never
// the spool's path. The calculation keeps to `room`, whose memory the caller reserved
// (calculation_room.hpp): its recording part goes to the recording, the rest stays the caller's
// to return once this returns; `purpose` names it in the budget's messages.
result<any_witness> input_partition_witness(const generator_ptr& gen, const std::string& path, uint32_t q,
                                            const key_summary& key, std::chrono::seconds time_limit,
                                            std::function<bool()> stop, calculation_room& room,
                                            const std::string& purpose);

}  // namespace cuzk::engine
