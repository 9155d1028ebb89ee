// SPDX-License-Identifier: MIT OR Apache-2.0
// locked_host_memory on a device: the block is page-locked as one registration the runtime knows,
// zero-filled, 2 MiB aligned, and a copy of all of it to the device and back is exact, for sizes
// that are not a multiple of any page and sizes too small for a second thread. Without a CUDA
// device every test that locks memory is skipped with a message.
#include "gpu/locked_host_memory.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gpu/device_buffer.hpp"
#include "gpu/device_test_util.hpp"

namespace cuzk::gpu {
namespace {

bool runtime_sees_locked(const void* p) {
  cudaPointerAttributes a{};
  return cudaPointerGetAttributes(&a, p) == cudaSuccess && a.type == cudaMemoryTypeHost;
}

TEST(locked_host_memory, a_block_is_zero_locked_aligned_and_copies_exactly) {
  CUZK_REQUIRE_GPU();
  std::mt19937_64 rng(7);
  for (std::size_t bytes : {std::size_t{1}, std::size_t{4097}, (std::size_t{3} << 20) + 5, std::size_t{200} << 20}) {
    SCOPED_TRACE(bytes);
    auto m = locked_host_memory::create(bytes, 4);
    ASSERT_TRUE(m.is_ok()) << m.error().to_string();
    ASSERT_EQ(m->bytes(), bytes);
    auto* p = static_cast<std::uint8_t*>(m->data());
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % (std::size_t{2} << 20), 0u);
    EXPECT_TRUE(runtime_sees_locked(p));
    EXPECT_TRUE(runtime_sees_locked(p + bytes - 1));  // the last byte is inside the one registration
    std::vector<std::uint8_t> zero(bytes, 0);
    EXPECT_EQ(std::memcmp(p, zero.data(), bytes), 0);

    for (std::size_t i = 0; i < bytes; ++i) p[i] = static_cast<std::uint8_t>(rng());
    auto d = device_buffer<std::uint8_t>::create(bytes);
    ASSERT_TRUE(d.is_ok()) << d.error().to_string();
    cudaStream_t s{};
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    // Asynchronous both ways: what the streamed MSMs do, and what fails on memory that is not locked.
    ASSERT_EQ(cudaMemcpyAsync(d->data(), p, bytes, cudaMemcpyHostToDevice, s), cudaSuccess);
    std::vector<std::uint8_t> want(p, p + bytes);
    std::memset(p, 0, bytes);
    ASSERT_EQ(cudaMemcpyAsync(p, d->data(), bytes, cudaMemcpyDeviceToHost, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    cudaStreamDestroy(s);
    EXPECT_EQ(std::memcmp(p, want.data(), bytes), 0);
  }
}

TEST(locked_host_memory, moving_hands_the_block_over_and_destruction_unlocks_it) {
  CUZK_REQUIRE_GPU();
  auto m = locked_host_memory::create(std::size_t{5} << 20);
  ASSERT_TRUE(m.is_ok()) << m.error().to_string();
  void* p = m->data();
  locked_host_memory owner = std::move(m).value();
  EXPECT_EQ(owner.data(), p);
  {
    locked_host_memory gone = std::move(owner);
    EXPECT_EQ(owner.data(), nullptr);
    EXPECT_EQ(owner.bytes(), 0u);
  }
  EXPECT_FALSE(runtime_sees_locked(p));  // unregistered and unmapped
  cudaGetLastError();                      // the query above may leave an error behind
}

TEST(locked_host_memory, a_typed_buffer_has_its_count_and_zero_is_empty) {
  CUZK_REQUIRE_GPU();
  auto b = locked_buffer<std::uint64_t>::create(1000);
  ASSERT_TRUE(b.is_ok()) << b.error().to_string();
  EXPECT_EQ(b->size(), 1000u);
  EXPECT_EQ(b->bytes(), 8000u);
  EXPECT_EQ(b->span().size(), 1000u);
  b->data()[999] = 42;
  auto moved = std::move(b).value();
  EXPECT_EQ(moved.data()[999], 42u);
  auto empty = locked_buffer<std::uint64_t>::create(0);
  ASSERT_TRUE(empty.is_ok());
  EXPECT_EQ(empty->data(), nullptr);
  EXPECT_EQ(empty->size(), 0u);
}

TEST(locked_host_memory, a_size_past_what_can_be_mapped_is_refused) {
  auto b = locked_buffer<std::uint64_t>::create(std::numeric_limits<std::size_t>::max() / 4);
  ASSERT_FALSE(b.is_ok());
  EXPECT_EQ(b.error().code(), errc::invalid_argument);
  auto m = locked_host_memory::create(std::numeric_limits<std::size_t>::max() - 1);
  ASSERT_FALSE(m.is_ok());
  EXPECT_EQ(m.error().code(), errc::invalid_argument);
}

}  // namespace
}  // namespace cuzk::gpu
