// SPDX-License-Identifier: MIT OR Apache-2.0
// A circuit's input JSON (snarkjs's input.json) read by circom's rules, ready for its witness code.
//
// The rules are those of circom's witness_calculator.js and snarkjs's `wtns calculate`:
//   - the file is one JSON object; each key names an input signal, each value is one value or an
//     array of any depth, flattened in row-major order (m[2][3] gives m[0][0], m[0][1], ...);
//   - an object value names the members of a bus input ("in": {"x": 1} is the signal "in.x"),
//     and an array of objects an array of buses ("in[0].x");
//   - a value is a decimal string (any length, optionally negative), a 0x-prefixed hex string, or
//     a JSON integer; it is reduced modulo the prime, a negative one to p - (|v| mod p).
// Where snarkjs would silently accept something that is almost surely a mistake, this refuses it
// with a message: a number beyond 2^53 (JavaScript rounds it before snarkjs sees it; write it as a
// string), a fraction, a boolean or null, an array of values and objects mixed. Messages name
// the file, the signal with its index, what was expected and what was found.
//
// Whether each signal exists and has the right number of values is the circuit's to say: the
// witness code answers that by the name's hash (circom_wasm.hpp checks it).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace cuzk::witness {

// One input signal (all of its values) as circom's witness code takes it.
struct input_signal {
  std::string name;             // "m", "in.x", "in[0].x"
  uint64_t name_hash = 0;       // fnv1a_64(name)
  std::size_t count = 0;        // values, after flattening
  std::vector<uint32_t> words;  // count values of n32 little-endian 32-bit words, each below p
};

// `json_text` is the file's text and `source` its name for messages; `prime` is the circuit's
// prime as n32 little-endian words. The signals come in the file's order.
result<std::vector<input_signal>> parse_circom_input(std::string_view json_text, const std::string& source,
                                                     std::span<const uint32_t> prime);

}  // namespace cuzk::witness
