// The prover behind the engine's workers: one interface, one implementation per kind of hardware.
//
// A worker hands a backend a resident key and one partition's witness and gets the proof back;
// everything around it (which key, which job, cancellation between partitions, verification,
// timing of the phases the engine sees) stays in the engine. The CPU implementation
// (cpu_prover_backend.hpp) wraps groth16::prove; the GPU backend will implement the same call,
// using the key's device tier and its own streams, and is the one that benefits from the cancel
// token between its internal steps (the CPU prover has none to offer).
//
// Thread safety: prove() is called by several workers at once; implementations must allow it.
#pragma once

#include <variant>

#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "engine/cancel_token.hpp"
#include "engine/loaded_key.hpp"
#include "engine/witness.hpp"
#include "formats/proof.hpp"

namespace cuzk::engine {

using any_proof = std::variant<formats::proof<bn254>, formats::proof<bls12_381>>;

// Seconds, filled by the backend: synthesis (a/b/c from the witness) and the rest of the proof
// (NTTs, MSMs, assembly).
struct backend_timings {
  double synthesis = 0;
  double prove = 0;
};

class prover_backend {
 public:
  virtual ~prover_backend() = default;
  virtual const char* name() const noexcept = 0;
  // The proof of `witness` (same curve as `key`, nVars values) with fresh random r, s.
  virtual result<any_proof> prove(const loaded_key& key, const any_witness& witness,
                                  const cancel_token& cancel, backend_timings& t) = 0;
};

}  // namespace cuzk::engine
