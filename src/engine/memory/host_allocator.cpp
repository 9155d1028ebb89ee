// SPDX-License-Identifier: MIT OR Apache-2.0
// The pageable allocator (see host_allocator.hpp).
#include "engine/memory/host_allocator.hpp"

#include <cstdlib>

namespace cuzk::engine {

result<host_block> pageable_allocator::allocate(std::size_t bytes) {
  constexpr std::size_t align = 64;
  const std::size_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded == 0 ? align : rounded);
  if (p == nullptr)
    return status(errc::io_error,
                  "host memory: cannot allocate " + std::to_string(bytes) + " bytes for a proving key");
  return host_block(p, bytes, [](void* q) { std::free(q); });
}

}  // namespace cuzk::engine
