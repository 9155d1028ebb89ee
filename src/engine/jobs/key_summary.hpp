// SPDX-License-Identifier: MIT OR Apache-2.0
// What the engine needs to know about a proving key without loading it: its curve and sizes.
//
// Registering a circuit reads only the zkey's protocol and header sections (a few hundred bytes
// of a mapping that is dropped at once), so a registry of many large keys costs nothing until a
// key is used; submit() checks a witness against these numbers (curve, nVars) before it queues
// anything. The full checks of the key's sections happen when it is loaded (loaded_key.hpp).
//
// `digest` names the key for re-registration: it covers the header section (the curve, sizes,
// alpha, beta, gamma, delta) and the IC section, which together are the verification key, so two
// zkeys with one digest give proofs that verify under the same key. A few hundred bytes to hash,
// where the whole file may be gigabytes. FNV-1a is not a cryptographic hash: it tells a mistaken
// re-point from a repeat, and whoever may register can replace a key anyway.
//
// Thread safety: a free function; a key_summary is a plain value.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "base/result.hpp"
#include "formats/curve_id.hpp"

namespace cuzk::engine {

struct key_summary {
  formats::curve_id curve = formats::curve_id::bn254;
  uint32_t n_vars = 0;
  uint32_t n_public = 0;
  uint32_t domain_size = 0;
  uint64_t file_bytes = 0;
  uint64_t coef_bytes = 0;  // the coefficient section's size: what the constraint matrices are built from
  uint32_t sections = 0;    // the container's section count (0: unknown)
  std::string digest;  // "fnv1a64:<16 hex digits>" over the header and IC sections
};

// format_error / unsupported naming the file for anything that is not a Groth16 zkey of a
// supported curve (wrong magic, protocol other than Groth16, unknown primes, truncated header).
result<key_summary> read_key_summary(const std::string& zkey_path);

// key_summary::digest of a zkey's header and IC sections, for a key already open (the check at
// every load that the file still holds the key registered: docs/HARDENING.md, finding 21).
std::string key_digest(std::span<const uint8_t> header, std::span<const uint8_t> ic);

}  // namespace cuzk::engine
