// SPDX-License-Identifier: MIT OR Apache-2.0
// After a backend returns a proof: verify it against the key's verification key and the witness's
// public signals, and encode it as snarkjs's proof.json and public.json.
//
// Verification (on by default) costs one multi-pairing, milliseconds, against a proof that took
// far longer; it turns a backend fault (a GPU bit flip, a kernel bug, the Rust cuzk's once
// misrouted multi-GPU work) into a failed job instead of an invalid proof handed to a chain.
//
// Thread safety: free functions; any thread.
#pragma once

#include "base/result.hpp"
#include "engine/backends/prover_backend.hpp"
#include "engine/jobs/job.hpp"
#include "engine/jobs/witness.hpp"
#include "engine/keys/loaded_key.hpp"

namespace cuzk::engine {

status verify_partition(const loaded_key& key, const any_witness& witness, const any_proof& proof);
result<partition_proof> encode_partition(const loaded_key& key, const any_witness& witness,
                                         const any_proof& proof);

}  // namespace cuzk::engine
