// SPDX-License-Identifier: MIT OR Apache-2.0
// The recorder's marks of a linear memory; see element_marks.hpp.
#include "witness/element_marks.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace cuzk::witness {

namespace {

constexpr std::size_t states_bytes = element_marks::memory_granules;
constexpr std::size_t slots_bytes = element_marks::memory_granules / element_marks::slot_granules * sizeof(uint32_t);
constexpr uint32_t phase_shift = 29;

// Address space only: a page costs memory once it is written.
void* reserve(std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

uint32_t slot_value(uint32_t g, uint32_t node) noexcept { return node | ((g % element_marks::slot_granules) << phase_shift); }

}  // namespace

element_marks::element_marks(uint32_t element_granules) : n_(element_granules) {
  if (n_ <= slot_granules || n_ > 16) throw std::bad_alloc();  // no such field element
  uint8_t whole[16] = {};
  for (uint32_t i = 0; i < n_; ++i) whole[i] = static_cast<uint8_t>(1 + i);
  std::memcpy(&whole_low_, whole, 8);
  std::memcpy(&whole_high_, whole + 8, 8);
  high_mask_ = n_ == 16 ? ~uint64_t{0} : (uint64_t{1} << (8 * (n_ - 8))) - 1;
  states_ = static_cast<uint8_t*>(reserve(states_bytes));
  try {
    slots_ = static_cast<uint32_t*>(reserve(slots_bytes));
  } catch (...) {
    ::munmap(states_, states_bytes);
    throw;
  }
}

element_marks::~element_marks() {
  ::munmap(states_, states_bytes);
  ::munmap(slots_, slots_bytes);
}

element_marks::reading element_marks::read(uint32_t g) const noexcept {
  const uint8_t* s = states_ + g;
  uint64_t low = 0, high = 0;
  if (g + uint64_t{16} <= memory_granules) {
    std::memcpy(&low, s, 8);  // two words at once (the reservation reaches 16 past any element below the top)
    std::memcpy(&high, s + 8, 8);
  } else {
    uint8_t last[16] = {};
    std::memcpy(last, s, n_);
    std::memcpy(&low, last, 8);
    std::memcpy(&high, last + 8, 8);
  }
  high &= high_mask_;
  if (low == 0 && high == 0) return {holds::constant, 0};
  if (low != whole_low_ || high != whole_high_) return {holds::unknown, 0};
  const uint32_t slot = slots_[g / slot_granules];
  const uint32_t node = slot & max_node;
  if ((slot >> phase_shift) != g % slot_granules || node == 0) return {holds::unknown, 0};
  return {holds::followed, node};
}

void element_marks::follow(uint32_t g, uint32_t node) noexcept {
  uint8_t whole[16];
  std::memcpy(whole, &whole_low_, 8);
  std::memcpy(whole + 8, &whole_high_, 8);
  std::memcpy(states_ + g, whole, n_);
  slots_[g / slot_granules] = slot_value(g, node);
}

void element_marks::set_constant(uint32_t g) noexcept { std::memset(states_ + g, constant, n_); }

void element_marks::set_stored(uint32_t g) noexcept { std::memset(states_ + g, stored, n_); }

void element_marks::save(uint32_t g, uint32_t granules, snapshot& s) const {
  s.granules = granules;
  if (granules == n_) {
    const reading r = read(g);
    if (r.what != holds::unknown) {
      s.form = r.what == holds::followed ? snapshot::shape::whole : snapshot::shape::constant;
      s.node = r.node;
      return;
    }
  }
  s.form = snapshot::shape::any;
  const uint8_t* const from = states_ + g;
  s.states.assign(from, from + granules);
  s.firsts.clear();
  // Each granule 0 in the range.
  for (const void* p = std::memchr(from, 1, granules); p;) {
    const auto i = static_cast<uint32_t>(static_cast<const uint8_t*>(p) - from);
    const uint32_t slot = slots_[(g + i) / slot_granules];
    if ((slot >> phase_shift) == (g + i) % slot_granules && (slot & max_node) != 0) {
      s.firsts.emplace_back(i, slot & max_node);
    } else {
      s.states[i] = stored;  // a granule 0 its slot no longer names: no element that reads as followed
    }
    p = i + 1 < granules ? std::memchr(from + i + 1, 1, granules - i - 1) : nullptr;
  }
}

void element_marks::restore(uint32_t g, const snapshot& s) noexcept {
  // One element, whole or constant: no piece of another is cut (its states start at 1 or 0 and end
  // at n or 0).
  if (s.form == snapshot::shape::whole) return follow(g, s.node);
  if (s.form == snapshot::shape::constant) return set_constant(g);
  // Locals: stores through uint8_t* may alias the members, which would be read again every time.
  uint8_t* const to = states_ + g;
  const uint32_t n = n_;
  const uint32_t count = s.granules;
  if (count == 0) return;
  std::memcpy(to, s.states.data(), count);
  for (const auto& [i, node] : s.firsts) slots_[(g + i) / slot_granules] = slot_value(g + i, node);
  // Granule k (state 1 + k, k >= 1) of an element whose granule 0 was not in the range: a piece of
  // an element cut off by the range's start.
  const auto is_tail = [n](uint32_t st) { return st - 2u < n - 1; };  // states 2..n
  for (uint32_t i = 0; i < std::min(count, n - 1); ++i)
    if (is_tail(to[i]) && to[i] - 1u > i) to[i] = stored;
  // Granules past the range that continue an element whose granule 0 is in it: that element's
  // tail is what was there before, not the copied one's. Only where the range ends inside an
  // element (its last state 1..n-1): else no element that starts in the range reaches past it
  // whole.
  if (to[count - 1] - 1u >= n - 1) return;
  const uint64_t end = uint64_t{g} + count;
  for (uint64_t t = end; t < std::min(end + n - 1, memory_granules); ++t) {
    const uint8_t st = states_[t];
    if (!is_tail(st)) continue;
    const uint64_t first = t - (st - 1u);
    if (first >= g && first < end) states_[t] = stored;
  }
}

}  // namespace cuzk::witness
