// SPDX-License-Identifier: MIT OR Apache-2.0
#include "base/bulk_array.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <new>
#include <numeric>
#include <span>

namespace cuzk {
namespace {

struct value32 {
  uint64_t limb[4] = {};
};

TEST(bulk_array, holds_what_is_written_at_sizes_below_and_above_a_huge_page) {
  for (const std::size_t n :
       {std::size_t{1}, std::size_t{1000}, (bulk_huge_page / sizeof(value32)) - 1,
        bulk_huge_page / sizeof(value32), (std::size_t{5} << 20) / sizeof(value32) + 3}) {
    bulk_array<value32> a(n);
    ASSERT_EQ(a.size(), n);
    ASSERT_NE(a.data(), nullptr);
    for (std::size_t i = 0; i < n; ++i) a[i] = value32{{i, ~i, i * 3, 7}};
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(a[i].limb[0], i);
      ASSERT_EQ(a[i].limb[1], ~i);
      ASSERT_EQ(a[i].limb[2], i * 3);
    }
    const auto addr = reinterpret_cast<std::uintptr_t>(a.data());
    if (n * sizeof(value32) >= bulk_huge_page)
      EXPECT_EQ(addr % bulk_huge_page, 0u) << "n=" << n;
    else
      EXPECT_EQ(addr % alignof(std::max_align_t), 0u) << "n=" << n;
  }
}

TEST(bulk_array, a_size_whose_bytes_overflow_is_refused_before_allocating) {
  EXPECT_THROW(bulk_array<value32>(std::numeric_limits<std::size_t>::max() / 16), std::bad_array_new_length);
}

TEST(bulk_array, an_empty_array_has_no_storage) {
  bulk_array<value32> a;
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.data(), nullptr);
  bulk_array<value32> b(0);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.begin(), b.end());
}

TEST(bulk_array, moves_leave_the_source_empty) {
  bulk_array<uint64_t> a(1 << 20);
  std::iota(a.begin(), a.end(), uint64_t{5});
  const uint64_t* p = a.data();
  bulk_array<uint64_t> b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.size(), std::size_t{1} << 20);
  EXPECT_EQ(b[100], 105u);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  EXPECT_EQ(a.data(), nullptr);
  bulk_array<uint64_t> c(3);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_TRUE(b.empty());  // NOLINT(bugprone-use-after-move)
  // A span over it, as the provers take their witness.
  std::span<const uint64_t> s(c);
  EXPECT_EQ(s.size(), c.size());
  EXPECT_EQ(s.back(), 5u + (1u << 20) - 1);
}

// adopt(): values inside a block of bytes become an array of their own without a copy, and the
// block is freed whole when that array goes (the sanitizer builds would see a wrong free); a
// range that does not fit or is misaligned is refused and the bytes stay with their owner.
TEST(bulk_array, adopts_aligned_values_inside_a_block_of_bytes_without_a_copy) {
  for (const std::size_t total : {std::size_t{100}, std::size_t{3} << 20}) {  // small, and huge-page aligned
    SCOPED_TRACE(total);
    bulk_array<uint8_t> bytes(total);
    for (std::size_t i = 0; i < total; ++i) bytes[i] = static_cast<uint8_t>(i * 7);
    const uint8_t* block = bytes.data();
    // Misaligned, and past the end: refused, the bytes untouched.
    EXPECT_TRUE(bulk_array<uint64_t>::adopt(bytes, 3, 2).empty());
    EXPECT_TRUE(bulk_array<uint64_t>::adopt(bytes, 8, total / 8).empty());
    EXPECT_TRUE(bulk_array<uint64_t>::adopt(bytes, total + 8, 1).empty());
    EXPECT_TRUE(bulk_array<uint64_t>::adopt(bytes, 8, 0).empty());
    ASSERT_EQ(bytes.data(), block);
    ASSERT_EQ(bytes.size(), total);
    const std::size_t n = (total - 16) / 8;
    auto values = bulk_array<uint64_t>::adopt(bytes, 16, n);
    ASSERT_EQ(values.size(), n);
    EXPECT_EQ(static_cast<const void*>(values.data()), static_cast<const void*>(block + 16));
    EXPECT_TRUE(bytes.empty());
    EXPECT_EQ(bytes.data(), nullptr);
    uint64_t want = 0;
    for (int k = 7; k >= 0; --k) want = (want << 8) | static_cast<uint8_t>((16 + k) * 7);
    EXPECT_EQ(values[0], want);  // little-endian, as the files' values are
    bulk_array<uint64_t> moved(std::move(values));
    EXPECT_EQ(moved.size(), n);
  }  // freed here, from the block's start

  // Adopted twice (bytes 4 in, then their values 4 further): still freed from the block's start.
  bulk_array<uint8_t> bytes(1 << 12);
  const uint8_t* block = bytes.data();
  auto inner = bulk_array<uint8_t>::adopt(bytes, 4, (1 << 12) - 4);
  ASSERT_EQ(inner.data(), block + 4);
  auto values = bulk_array<uint64_t>::adopt(inner, 4, 100);
  ASSERT_EQ(static_cast<const void*>(values.data()), static_cast<const void*>(block + 8));
  EXPECT_TRUE(inner.empty());
}

}  // namespace
}  // namespace cuzk
