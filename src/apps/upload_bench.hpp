// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk bench upload`: what sending a witness's bytes costs a client before any proof runs.
//
// Each round makes two Prove calls that a daemon refuses only once it holds the whole request:
// one names no registered circuit (refused after the request is received and parsed), one sends
// the witness with its last value set to 2^256 - 1 (refused by the check of every value against r,
// after the header matched the circuit's key). No job is made and nothing is spooled, so the
// times are the client's serialization, the transfer, the daemon's parse and, for the second, the
// value check: the part of a bytes submit's round trip that `bench single` reports beside the
// daemon's own phase times but cannot show (docs/gpu/proof.md, 'Submitting by path').
#pragma once

#include <cstdint>
#include <string>

#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::apps {

// Prints one row per kind of call (median and range of `rounds` calls) and returns the exit
// status: 1 when a call was refused for any other reason than the one it was made for.
int run_upload_bench(cuzk::v1::ProvingEngine::Stub& stub, const std::string& circuit, const std::string& wtns,
                     uint64_t rounds);

}  // namespace cuzk::apps
