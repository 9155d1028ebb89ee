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
  if (n_ <= slot_granules || n_ >= stored - 1) throw std::bad_alloc();  // no such field element
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
  if (s[0] == constant) {
    const bool all = std::all_of(s + 1, s + n_, [](uint8_t x) { return x == constant; });
    return {all ? holds::constant : holds::unknown, 0};
  }
  for (uint32_t i = 0; i < n_; ++i)
    if (s[i] != 1 + i) return {holds::unknown, 0};
  const uint32_t slot = slots_[g / slot_granules];
  const uint32_t node = slot & max_node;
  if ((slot >> phase_shift) != g % slot_granules || node == 0) return {holds::unknown, 0};
  return {holds::followed, node};
}

void element_marks::follow(uint32_t g, uint32_t node) noexcept {
  for (uint32_t i = 0; i < n_; ++i) states_[g + i] = static_cast<uint8_t>(1 + i);
  slots_[g / slot_granules] = slot_value(g, node);
}

void element_marks::set_constant(uint32_t g) noexcept { std::memset(states_ + g, constant, n_); }

void element_marks::set_stored(uint32_t g) noexcept { std::memset(states_ + g, stored, n_); }

void element_marks::save(uint32_t g, uint32_t granules, snapshot& s) const {
  s.states.assign(states_ + g, states_ + g + granules);
  s.firsts.clear();
  for (uint32_t i = 0; i < granules; ++i) {
    if (s.states[i] != 1) continue;
    const uint32_t slot = slots_[(g + i) / slot_granules];
    if ((slot >> phase_shift) == (g + i) % slot_granules && (slot & max_node) != 0) {
      s.firsts.emplace_back(i, slot & max_node);
    } else {
      s.states[i] = stored;  // a granule 0 its slot no longer names: no element that reads as followed
    }
  }
}

void element_marks::restore(uint32_t g, const snapshot& s) noexcept {
  const auto count = static_cast<uint32_t>(s.states.size());
  std::copy(s.states.begin(), s.states.end(), states_ + g);
  for (const auto& [i, node] : s.firsts) slots_[(g + i) / slot_granules] = slot_value(g + i, node);
  // Granule k of an element (state 1 + k) whose granule 0 was not in the range: the bytes are a
  // piece of an element cut off by the range's start.
  for (uint32_t i = 0; i < std::min(count, n_); ++i) {
    const uint8_t st = states_[g + i];
    if (st != constant && st != stored && st - 1u > i) states_[g + i] = stored;
  }
  // Granules past the range that continue an element whose granule 0 is in it: that element's
  // tail is what was there before, not the copied one's.
  const uint64_t end = uint64_t{g} + count;
  for (uint64_t t = end; t < std::min(end + n_ - 1, memory_granules); ++t) {
    const uint8_t st = states_[t];
    if (st == constant || st == stored || st == 1) continue;  // st == 1: an element's own granule 0
    const uint64_t first = t - (st - 1u);
    if (first >= g && first < end) states_[t] = stored;
  }
}

bool element_marks::same(uint32_t g, const snapshot& s) const noexcept {
  if (!std::equal(s.states.begin(), s.states.end(), states_ + g)) return false;
  return std::all_of(s.firsts.begin(), s.firsts.end(),
                     [&](const auto& f) { return slots_[(g + f.first) / slot_granules] == slot_value(g + f.first, f.second); });
}

}  // namespace cuzk::witness
