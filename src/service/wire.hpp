// SPDX-License-Identifier: MIT OR Apache-2.0
// Conversions between the wire (proto/cuzk/v1/proving.proto) and the engine's types, shared by the
// gRPC handlers (grpc_service.hpp) and the client verbs. They need the messages only, not gRPC, so
// they live in the service's wire library (cuzk_wire), which the request fuzz target
// (fuzz/submit_request_fuzz.cpp) links without a server.
//
// Each enum is mapped by an explicit switch, never by arithmetic on the numbers: the proto's start
// at 1 (0 is UNSPECIFIED) and the engine's at 0, and a number the proto does not define (a newer
// peer's) must map to nothing rather than to a neighbour. nullopt for UNSPECIFIED and for such
// numbers.
//
// Thread safety: free functions.
#pragma once

#include <optional>

#include "cuzk/v1/proving.pb.h"
#include "engine/jobs/job.hpp"

namespace cuzk::service {

std::optional<engine::priority> from_wire(cuzk::v1::Priority p) noexcept;
// The same, with `fallback` for UNSPECIFIED and unknown numbers (the request's "circuit default").
engine::priority from_wire(cuzk::v1::Priority p, engine::priority fallback) noexcept;
cuzk::v1::Priority to_wire(engine::priority p) noexcept;
std::optional<engine::job_state> from_wire(cuzk::v1::JobState s) noexcept;
cuzk::v1::JobState to_wire(engine::job_state s) noexcept;
void to_wire(const engine::job_result& r, cuzk::v1::ProofResult* out);

// A SubmitProofRequest as the engine takes it: UNSPECIFIED priority is the circuit's default, a
// deadline of 0 (or less) none, each partition its bytes or its path. Nothing is checked here: that
// is engine::submit's (engine/jobs/request_checks.hpp first). Inline witness bytes are borrowed
// from `req`, not copied (engine::witness_input::borrow), so `req` must outlive the result.
engine::job_request to_job_request(const cuzk::v1::SubmitProofRequest& req);

}  // namespace cuzk::service
