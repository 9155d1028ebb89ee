// SPDX-License-Identifier: MIT OR Apache-2.0
// Page-locked host blocks for the hot tier and the staging pool where there is a GPU, so that a hot
// key's upload and a proof's copies run at the line rate. The memory and its CUDA calls belong to
// gpu/locked_host_memory.hpp (through groth16/gpu/gpu_devices.hpp); this adapts it to the engine's
// host_allocator. Built only with the GPU prover.
//
// Thread safety: allocate() from any thread.
#pragma once

#include "engine/memory/host_allocator.hpp"
#include "groth16/gpu/gpu_devices.hpp"

namespace cuzk::engine {

class gpu_pinned_allocator final : public host_allocator {
 public:
  const char* kind() const noexcept override { return "pinned"; }
  result<host_block> allocate(std::size_t bytes) override {
    if (bytes == 0) return host_block(nullptr, 0, [](void*) {});
    auto m = groth16::allocate_pinned_host(bytes);
    if (!m) return m.error();
    return host_block(m->data, bytes, std::move(m->free));
  }
};

}  // namespace cuzk::engine
