// The largest gRPC message the daemon takes (issue 20, fault 14).
//
// Why it must be small: gRPC (1.51) reads a whole message into its buffer before it checks the
// size, and protobuf then copies an inline witness into a string that grows by doubling, so a
// message under the limit costs the daemon about 3x its size at its peak and one over it about 1x
// before gRPC refuses it (docs/HARDENING.md has the measurements). Nothing the engine checks can
// run earlier: the handler sees the request only once it is parsed. So this limit is what bounds
// a request's memory, and each in-flight request's.
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

}  // namespace cuzk::service
