// SPDX-License-Identifier: MIT OR Apache-2.0
// The largest gRPC message the daemon takes, and the memory gRPC may hold for requests while they
// arrive (docs/HARDENING.md, finding 14).
//
// Why both: gRPC (1.51) reads a whole message into its buffer before it checks the size, and
// protobuf then copies an inline witness into a string that grows by doubling, so a message under
// the limit costs the daemon about 3x its size at its peak, and one over it would cost 1x of
// whatever a client sends (up to 4 GiB) before gRPC refuses it (docs/HARDENING.md has the
// measurements). So the limit bounds what a request that is let in costs, and a resource quota on
// gRPC's transport (request_memory_bytes) bounds what messages cost while they arrive: a stream
// that would take more is reset (RESOURCE_EXHAUSTED) before it is whole.
//
// `max_message_mib = 0` (the default) derives the limit from the keys registered: the largest
// witness any of them can take (engine::max_witness_bytes) plus room for the other fields, rounded
// up to MiB, never below gRPC's own default of 4 MiB nor above `max_message_ceiling_mib`. It is
// derived again whenever a key is registered or replaced (message_limit::follow), so a circuit
// registered after the start takes its witness inline without a restart. gRPC's own limit is fixed
// when its server starts, so there it is the ceiling, and the handlers refuse what is over the
// derived limit (message_limit::admit): such a message is read and parsed before it is refused,
// which the ceiling bounds. An explicit `max_message_mib` is gRPC's limit itself.
//
// Every refusal names the config key that admits the message: `max_message_mib`, set to the
// message's size. Raising the ceiling admits only what a registered key's witness needs.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "engine/keys/circuit_registry.hpp"

namespace cuzk::service {

inline constexpr int64_t min_message_bytes = int64_t{4} << 20;        // gRPC's default
inline constexpr int64_t max_message_bytes = int64_t{2047} << 20;     // what gRPC's int holds, in MiB
inline constexpr int64_t message_overhead_bytes = int64_t{64} << 10;  // ids, paths, framing
// The default ceiling of a derived limit: the witness of a key of about 8 million variables. A
// message under it but over the derived limit is parsed before it is refused (up to 3x its size);
// 256 MiB is also the floor of the transport's quota, so the two defaults bound one such message
// alike.
inline constexpr int64_t default_message_ceiling_mib = 256;

// In bytes: `max_message_mib` MiB when it is set (> 0), else derived from `circuits` as above,
// within [4 MiB, ceiling_mib MiB].
int64_t message_limit_bytes(int64_t max_message_mib, int64_t ceiling_mib,
                            const std::vector<engine::circuit_info>& circuits);

// What gRPC's server itself is told: the explicit limit, else the ceiling.
int64_t transport_limit_bytes(int64_t max_message_mib, int64_t ceiling_mib);

// The quota for gRPC's transport memory: `request_memory_mib` MiB when it is set (> 0), else room
// for eight messages of the limit (`limit` bytes) arriving at once (`cuzk bench batch -j 8` with
// inline witnesses of the largest key) and 32 MiB for everything else, at least 256 MiB. A message
// that would take more is cut off when the quota runs out rather than read whole (measured: a
// 200 MB message with a 40 MiB quota cost the daemon 41 MB, without a quota 196 MB); so are
// requests past it while it is full.
inline constexpr int64_t min_request_memory_bytes = int64_t{256} << 20;
int64_t request_memory_bytes(int64_t request_memory_mib, int64_t limit);

// The refusal of a `found`-byte message over a `limit`-byte limit, naming the key that admits it.
// `by_path`: whether the daemon reads witnesses by path (its witness_dirs are set); only then is
// sending it by path offered.
status message_too_large(int64_t limit, int64_t found, bool by_path);

// The limit a running daemon applies, derived again as keys come and go. Any thread may call any
// method; `on_change` (the daemon resizes gRPC's quota in it) runs under the object's lock.
class message_limit {
 public:
  struct options {
    int64_t max_message_mib = 0;
    int64_t ceiling_mib = default_message_ceiling_mib;
    int64_t request_memory_mib = 0;
    bool by_path = false;
    std::function<void(int64_t limit, int64_t request_memory)> on_change;
  };
  message_limit(options o, const std::vector<engine::circuit_info>& circuits);

  // Derives the limit from `circuits` (the registry after a registration); calls on_change when it
  // moved.
  void follow(const std::vector<engine::circuit_info>& circuits);
  int64_t bytes() const noexcept { return limit_.load(std::memory_order_relaxed); }
  int64_t request_memory() const noexcept { return request_memory_.load(std::memory_order_relaxed); }
  bool derived() const noexcept { return o_.max_message_mib == 0; }
  // What gRPC's server is told (transport_limit_bytes).
  int64_t transport_bytes() const noexcept { return transport_limit_bytes(o_.max_message_mib, o_.ceiling_mib); }
  // OK for a request of `size` bytes under the limit, else the refusal (message_too_large).
  status admit(std::size_t size) const;

 private:
  options o_;
  std::mutex m_;
  std::atomic<int64_t> limit_{0};
  std::atomic<int64_t> request_memory_{0};
};

}  // namespace cuzk::service
