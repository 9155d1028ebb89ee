// SPDX-License-Identifier: MIT OR Apache-2.0
// element_marks against a reference that keeps, for every granule, which write put it there (a
// follow, a constant, a store; a copy keeps the source's): an element is followed by node N only
// where all its granules are granules 0, 1, .. of one follow of N. On random writes and copies
// anywhere (cut elements, overlapping copies, the top of the 4 GiB), the marks must never read an
// element as followed that the reference does not, must read constants exactly as it does, and on
// element-aligned writes (as circom's signals and its copies of whole elements are) must read just
// what it reads. Both element sizes (BN254's 10 granules, BLS12-381's 14).
#include "witness/element_marks.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <unordered_map>

namespace cuzk::witness {
namespace {

// What the reference knows of a granule.
struct provenance {
  enum kind_t : uint8_t { constant, stored, followed } kind = constant;
  uint32_t write = 0, node = 0, index = 0;  // followed: which follow, its node, granule index in it
  bool operator==(const provenance&) const = default;
};

class reference {
 public:
  explicit reference(uint32_t n) : n_(n) {}
  provenance at(uint64_t g) const {
    auto it = granules_.find(g);
    return it == granules_.end() ? provenance{} : it->second;
  }
  void set(uint64_t g, provenance p) {
    if (p == provenance{}) {
      granules_.erase(g);
    } else {
      granules_[g] = p;
    }
  }
  void follow(uint32_t g, uint32_t node) {
    ++writes_;
    for (uint32_t i = 0; i < n_; ++i) set(g + i, {provenance::followed, writes_, node, i});
  }
  void fill(uint32_t g, uint32_t count, provenance::kind_t k) {
    for (uint32_t i = 0; i < count; ++i) set(g + i, {k});
  }
  void copy(uint32_t from, uint32_t to, uint32_t count) {
    std::vector<provenance> moved;
    for (uint32_t i = 0; i < count; ++i) moved.push_back(at(from + i));
    for (uint32_t i = 0; i < count; ++i) set(to + i, moved[i]);
  }
  element_marks::reading read(uint32_t g) const {
    const provenance p0 = at(g);
    bool constant = true, whole = p0.kind == provenance::followed && p0.index == 0;
    for (uint32_t i = 0; i < n_; ++i) {
      const provenance p = at(g + i);
      constant = constant && p.kind == provenance::constant;
      whole = whole && p.kind == provenance::followed && p.write == p0.write && p.index == i;
    }
    if (constant) return {element_marks::holds::constant, 0};
    if (whole) return {element_marks::holds::followed, p0.node};
    return {element_marks::holds::unknown, 0};
  }

 private:
  uint32_t n_;
  uint32_t writes_ = 0;
  std::unordered_map<uint64_t, provenance> granules_;
};

class ElementMarks : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    std::random_device rd;
    seed_ = (uint64_t{rd()} << 32) | rd();
    rng_.seed(seed_);
    RecordProperty("seed", std::to_string(seed_));
  }
  uint32_t n() const { return GetParam(); }
  uint32_t below(uint32_t k) { return std::uniform_int_distribution<uint32_t>(0, k - 1)(rng_); }

  static void copy(element_marks& m, uint32_t from, uint32_t to, uint32_t count) {
    element_marks::snapshot s;
    m.save(from, count, s);
    m.restore(to, s);
  }

  // The marks never read more than the reference; `exact`: they read just what it reads.
  void check(const element_marks& m, const reference& r, uint32_t g, bool exact, const char* after) {
    const auto got = m.read(g), want = r.read(g);
    SCOPED_TRACE(::testing::Message() << "granule " << g << " after " << after << " (seed " << seed_ << ")");
    if (got.what == element_marks::holds::followed) {
      ASSERT_EQ(want.what, element_marks::holds::followed);
      ASSERT_EQ(got.node, want.node);
    }
    ASSERT_EQ(got.what == element_marks::holds::constant, want.what == element_marks::holds::constant);
    if (exact) {
      ASSERT_EQ(got.what, want.what);
      ASSERT_EQ(got.node, want.node);
    }
  }

  uint64_t seed_ = 0;
  std::mt19937_64 rng_;
};

TEST_P(ElementMarks, AWholeElementReadsBackAndAnyChangeToItEndsThat) {
  element_marks m(n());
  EXPECT_EQ(m.read(0).what, element_marks::holds::constant);
  m.follow(100, 7);
  EXPECT_EQ(m.read(100).what, element_marks::holds::followed);
  EXPECT_EQ(m.read(100).node, 7u);
  for (uint32_t g = 100 - n() + 1; g < 100 + n(); ++g)
    if (g != 100) {
      EXPECT_EQ(m.read(g).what, element_marks::holds::unknown) << g;
    }
  m.follow(300, element_marks::max_node);
  EXPECT_EQ(m.read(300).node, element_marks::max_node);
  // A store of the circuit's own code (the trace hook writes the state byte) into any granule.
  for (uint32_t i = 0; i < n(); ++i) {
    m.follow(100, 7);
    m.states()[100 + i] = element_marks::stored;
    EXPECT_EQ(m.read(100).what, element_marks::holds::unknown) << i;
  }
  m.set_constant(100);
  EXPECT_EQ(m.read(100).what, element_marks::holds::constant);
  m.follow(100, 7);
  m.set_stored(100);
  EXPECT_EQ(m.read(100).what, element_marks::holds::unknown);
}

TEST_P(ElementMarks, ACopyMovesAnElementWithItsNode) {
  element_marks m(n());
  m.follow(40, 3);
  m.follow(40 + n(), 4);
  copy(m, 40, 1001, 2 * n());  // to another phase of the slots
  EXPECT_EQ(m.read(1001).node, 3u);
  EXPECT_EQ(m.read(1001 + n()).node, 4u);
  copy(m, 1001, 1003, 2 * n());  // overlapping, as memmove
  EXPECT_EQ(m.read(1003).node, 3u);
  EXPECT_EQ(m.read(1003 + n()).node, 4u);
  // In place (a field function that changes an element's representation, not its value).
  m.states()[1004] = element_marks::stored;
  element_marks::snapshot s;
  m.save(1003 + n(), n(), s);
  m.restore(1003 + n(), s);
  EXPECT_EQ(m.read(1003).what, element_marks::holds::unknown);
  EXPECT_EQ(m.read(1003 + n()).node, 4u);
}

// A copy whose range starts inside an element: the pieces are not that element, wherever they go.
TEST_P(ElementMarks, ACopyFromInsideAnElementFollowsNothing) {
  element_marks m(n());
  m.follow(0, 1);
  m.follow(200, 2);
  // Element 2's granules 2.. over element 1's granules 2..: granules 0 and 1 are still element
  // 1's, the rest hold element 2's granules 2, 3, .. where element 1's were.
  copy(m, 202, 2, n() - 2);
  EXPECT_EQ(m.read(0).what, element_marks::holds::unknown);
  // Likewise shifted: element 2's granules 1.. over element 1's granules 2.. (a mark per granule
  // that names only the node would take this for node 2's element where both elements are node 2).
  m.follow(0, 2);
  copy(m, 201, 2, n() - 2);
  EXPECT_EQ(m.read(0).what, element_marks::holds::unknown);
}

// A copy whose range ends inside an element: its head over an element at the same place leaves
// that element's tail, which is not the copied element's.
TEST_P(ElementMarks, ACopyThatCutsAnElementsTailFollowsNothing) {
  element_marks m(n());
  m.follow(0, 1);
  m.follow(200, 2);
  copy(m, 200, 0, 3);
  EXPECT_EQ(m.read(0).what, element_marks::holds::unknown);
  for (uint32_t g = 3; g < n(); ++g) EXPECT_EQ(m.states()[g], element_marks::stored) << g;
  // An element that starts right after the range keeps its marks.
  m.follow(300, 3);
  m.follow(300 + n(), 4);
  copy(m, 200, 300, n());
  EXPECT_EQ(m.read(300).node, 2u);
  EXPECT_EQ(m.read(300 + n()).node, 4u);
}

// Two elements' granule 0 within one slot: the later one's node is kept, and the older element,
// if still whole, reads as unknown (a lost graph, never a wrong one).
TEST_P(ElementMarks, TwoElementsInOneSlotKeepTheLaterOne) {
  element_marks m(n());
  m.follow(20, 1);  // slot 2: granules 16..23
  m.follow(400, 2);
  copy(m, 400, 17, 1);  // element 2's granule 0 alone, before element 1
  EXPECT_EQ(m.states()[17], 1);
  EXPECT_EQ(m.read(17).what, element_marks::holds::unknown);  // not whole
  EXPECT_EQ(m.read(20).what, element_marks::holds::unknown);  // whole, but its slot names 17
  m.follow(20, 5);
  EXPECT_EQ(m.read(20).node, 5u);
  // A snapshot of element 17's lone granule 0 with the slot lost keeps no node for it.
  element_marks::snapshot s;
  m.save(17, 1, s);
  EXPECT_TRUE(s.firsts.empty());
  EXPECT_EQ(s.states[0], element_marks::stored);
}

TEST_P(ElementMarks, TheTopOfTheAddressSpace) {
  element_marks m(n());
  const auto top = static_cast<uint32_t>(element_marks::memory_granules - n());
  m.follow(top, 6);
  EXPECT_EQ(m.read(top).node, 6u);
  m.follow(top - n(), 7);
  copy(m, top - n(), top, n());
  EXPECT_EQ(m.read(top).node, 7u);
  copy(m, top - n(), top, 2);  // the tail past the range reaches the last granule
  EXPECT_EQ(m.read(top).what, element_marks::holds::unknown);
  EXPECT_EQ(m.states()[element_marks::memory_granules - 1], element_marks::stored);
}

// Random writes and copies of any length anywhere in a window of memory: never more than the
// reference.
TEST_P(ElementMarks, RandomWritesAnywhereNeverFollowMoreThanTheReference) {
  for (const uint32_t base : {0u, 12345u, static_cast<uint32_t>(element_marks::memory_granules - 600)}) {
    element_marks m(n());
    reference r(n());
    const uint32_t span = 600 - n();
    for (int op = 0; op < 8000; ++op) {
      const uint32_t g = base + below(span), kind = below(10);
      const char* what = "";
      uint32_t lo = g, hi = g + n();
      if (kind < 4) {
        const uint32_t node = 1 + below(4);  // few nodes: the same node at two places must not mix
        m.follow(g, node);
        r.follow(g, node);
        what = "follow";
      } else if (kind == 4) {
        m.set_constant(g);
        r.fill(g, n(), provenance::constant);
        what = "constant";
      } else if (kind == 5) {
        const uint32_t count = 1 + below(3);
        std::fill(m.states() + g, m.states() + g + count, element_marks::stored);
        r.fill(g, count, provenance::stored);
        what = "store";
      } else {
        const uint32_t count = 1 + below(3 * n()), from = base + below(600 - count), to = base + below(600 - count);
        copy(m, from, to, count);
        r.copy(from, to, count);
        lo = to;
        hi = to + count + n();
        what = "copy";
      }
      // Every element that can have changed, and a few others.
      for (uint64_t t = lo >= base + n() ? lo - n() : base; t < std::min<uint64_t>(hi, base + span); ++t)
        ASSERT_NO_FATAL_FAILURE(check(m, r, static_cast<uint32_t>(t), false, what));
      for (int k = 0; k < 4; ++k) ASSERT_NO_FATAL_FAILURE(check(m, r, base + below(span), false, what));
    }
  }
}

// Writes and copies of whole elements at element-aligned places, stores anywhere: exactly the
// reference.
TEST_P(ElementMarks, AlignedElementsReadExactlyAsTheReference) {
  element_marks m(n());
  reference r(n());
  constexpr uint32_t elements = 64, base = 7;  // the first at granule 7: no slot phase favoured
  const auto at = [&](uint32_t e) { return base + e * n(); };
  for (int op = 0; op < 8000; ++op) {
    const uint32_t e = below(elements), kind = below(8);
    if (kind < 3) {
      const uint32_t node = 1 + below(element_marks::max_node);
      m.follow(at(e), node);
      r.follow(at(e), node);
    } else if (kind == 3) {
      m.set_constant(at(e));
      r.fill(at(e), n(), provenance::constant);
    } else if (kind == 4) {
      const uint32_t g = base + below(elements * n() - 2), count = 1 + below(2);
      std::fill(m.states() + g, m.states() + g + count, element_marks::stored);
      r.fill(g, count, provenance::stored);
    } else {
      const uint32_t count = 1 + below(4), from = below(elements - count + 1), to = below(elements - count + 1);
      copy(m, at(from), at(to), count * n());
      r.copy(at(from), at(to), count * n());
    }
    for (uint32_t k = 0; k < elements; ++k) ASSERT_NO_FATAL_FAILURE(check(m, r, at(k), true, "aligned writes"));
  }
}

INSTANTIATE_TEST_SUITE_P(FieldElements, ElementMarks, ::testing::Values(10u, 14u),
                         [](const auto& p) { return p.param == 10 ? std::string("bn254") : std::string("bls12_381"); });

}  // namespace
}  // namespace cuzk::witness
