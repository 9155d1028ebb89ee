// SPDX-License-Identifier: MIT OR Apache-2.0
// The largest gRPC message the daemon takes, and the memory gRPC may hold for requests while they
// arrive (issue 20, fault 14).
//
// Why both: gRPC (1.51) reads a whole message into its buffer before it checks the size, and
// protobuf then copies an inline witness into a string that grows by doubling, so a message under
// the limit costs the daemon about 3x its size at its peak, and one over it would cost 1x of
// whatever a client sends (up to 4 GiB) before gRPC refuses it (docs/HARDENING.md has the
// measurements). Nothing the engine checks can run earlier: the handler sees the request only once
// it is parsed. So the limit bounds what a request that is let in costs, and a resource quota on
// gRPC's transport (request_memory_bytes) bounds what messages cost while they arrive: a stream
// that would take more is reset (RESOURCE_EXHAUSTED) before it is whole.
//
// `max_message_mib = 0` (the default) derives it from the keys registered at start: the largest
// witness any of them can take (engine::max_witness_bytes) plus room for the other fields,
// rounded up to MiB, and never below gRPC's own default of 4 MiB. A witness larger than that
// (a key registered later, several partitions of a large key in one request) goes by path, or an
// explicit max_message_mib admits it.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/keys/circuit_registry.hpp"

namespace cuzk::service {

inline constexpr int64_t min_message_bytes = int64_t{4} << 20;        // gRPC's default
inline constexpr int64_t message_overhead_bytes = int64_t{64} << 10;  // ids, paths, framing

// In bytes: `max_message_mib` MiB when it is set (> 0), else derived from `circuits` as above.
int64_t message_limit_bytes(int64_t max_message_mib, const std::vector<engine::circuit_info>& circuits);

// The quota for gRPC's transport memory: `request_memory_mib` MiB when it is set (> 0), else room
// for eight messages of the limit (`limit` bytes) arriving at once (`cuzk bench batch -j 8` with
// inline witnesses of the largest key) and 32 MiB for everything else, at least 256 MiB. A message
// that would take more is cut off when the quota runs out rather than read whole (measured: a
// 200 MB message with a 40 MiB quota cost the daemon 41 MB, without a quota 196 MB); so are
// requests past it while it is full.
inline constexpr int64_t min_request_memory_bytes = int64_t{256} << 20;
int64_t request_memory_bytes(int64_t request_memory_mib, int64_t limit);

}  // namespace cuzk::service
