// SPDX-License-Identifier: MIT OR Apache-2.0
// Witnesses from circom input JSON (see input_witness.hpp).
#include "engine/jobs/input_witness.hpp"

#include "formats/curve_id.hpp"
#include "formats/file_io.hpp"
#include "formats/wtns_writer.hpp"
#include "witness/circom_input.hpp"
#include "witness/wasm_compiler.hpp"

namespace cuzk::engine {

namespace {

std::span<const uint8_t> as_bytes(const std::vector<uint32_t>& words) {
  return {reinterpret_cast<const uint8_t*>(words.data()), words.size() * sizeof(uint32_t)};
}

}  // namespace

result<generator_ptr> load_circuit_generator(const std::string& wasm_path, const key_summary& key,
                                             const std::string& cache_dir) {
  auto code = formats::mapped_file::open(wasm_path);
  if (!code) return code.error();
  auto lib = witness::compile_witness_generator(code->bytes(), wasm_path, cache_dir);
  if (!lib) return lib.error();
  auto gen = witness::witness_generator::load(lib->library, wasm_path);
  if (!gen) return gen.error();
  auto curve = formats::curve_from_scalar_prime(as_bytes((*gen)->prime()), wasm_path + ": the circuit's prime");
  if (!curve) return curve.error();
  if (*curve != key.curve)
    return status(errc::invalid_argument, wasm_path + ": expected a circuit over the key's curve " +
                                              formats::curve_name(key.curve) + ", found one over " +
                                              formats::curve_name(*curve));
  if ((*gen)->witness_size() != key.n_vars)
    return status(errc::invalid_argument, wasm_path + ": expected the key's " + std::to_string(key.n_vars) +
                                              " wires, found a circuit of " +
                                              std::to_string((*gen)->witness_size()) +
                                              " (the wasm of another circuit?)");
  return *gen;
}

status check_input_json(const witness::witness_generator& gen, std::string_view json, const std::string& what) {
  auto inputs = witness::parse_circom_input(json, what, gen.prime());
  if (!inputs) return status(errc::invalid_argument, inputs.error().message());
  return status::ok();
}

result<any_witness> witness_from_input_json(const witness::witness_generator& gen, const std::string& path,
                                            const key_summary& key, const std::string& what,
                                            const witness::calculation_limits& limits) {
  auto text = formats::read_text_file(path, max_input_json_bytes, "a circuit's input JSON");
  if (!text) return text.error();
  auto inputs = witness::parse_circom_input(*text, what, gen.prime());
  if (!inputs) return inputs.error();
  // A circuit's first calculation records its witness graph beside the job, not in its way.
  witness::calculation_limits beside = limits;
  beside.graph_recording = witness::calculation_limits::recording::beside;
  auto w = gen.calculate(*inputs, what, beside);
  if (!w) return w.error();
  auto wtns = witness_from_bytes(std::move(w->wtns), what);
  if (!wtns) return wtns.error();
  CUZK_TRY(check_witness(*wtns, key, what));
  return read_witness(*wtns, key);
}

result<any_witness> input_partition_witness(const generator_ptr& gen, const std::string& path, uint32_t q,
                                            const key_summary& key, std::chrono::seconds time_limit,
                                            std::function<bool()> stop, calculation_room& room,
                                            const std::string& purpose) {
  witness::calculation_limits limits;
  limits.deadline = std::chrono::steady_clock::now() + time_limit;
  limits.stop_polled = std::move(stop);
  room.hand_to(limits, purpose);
  auto w = gen ? witness_from_input_json(*gen, path, key, "input JSON", limits)
               : result<any_witness>(status(errc::failed_precondition,
                                            "input JSON: the circuit's witness generator is not loaded"));
  if (!w && w.error().code() == errc::deadline_exceeded)
    w = status(errc::deadline_exceeded,
               w.error().message() + " (witness_time_limit_s = " + std::to_string(time_limit.count()) + ")");
  if (!w) return hide_path(w.error(), path, "input JSON").with_context("partition " + std::to_string(q));
  return w;
}

}  // namespace cuzk::engine
