// SPDX-License-Identifier: MIT OR Apache-2.0
// The distinct values of a constraint matrix's entries, where they are few, and each entry's index
// among them.
//
// Why: a matrix entry's value is a 32-byte field element, 32 of the 36 bytes an entry takes (the
// column is the other 4). Circuits use few distinct coefficients: circom's booleanity and product
// rows hold 1 and -1, bit decompositions the powers of two, so a 2-byte index into a table of them
// carries the same entry in 6 bytes. Synthesis on the device keeps the matrices resident beside the key
// (gpu/abc_device.hpp): at 2^26 constraints of such a circuit that is 1.6 GiB instead of 7.5, which
// a 16 GiB card can hold beside a proof. A circuit of many distinct coefficients (more than
// max_dictionary_values, as in one of random coefficients) keeps its values in place.
//
// The table is found once, when a matrix is built (csr_matrix.hpp's build_csr); the indexes are
// made when they are needed (the device's upload), so the host keeps no copy of them.
//
// Thread: distinct_values and value_index's constructor on one thread, distinct_values_on on a
// pool's; value_index::of and indexes on any number at once, once it is made (they only read it).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "base/thread_pool.hpp"

namespace cuzk::synth {

// At most this many distinct values get a table: one more than a 2-byte index holds would not fit.
inline constexpr std::size_t max_dictionary_values = std::size_t{1} << 16;

namespace detail {
template <class Fr>
struct value_hash {
  std::size_t operator()(const Fr& v) const noexcept {
    // The limbs of a field element are uniform enough that mixing them is a good hash.
    std::size_t h = 0;
    for (const uint64_t limb : v.montgomery().limb) h = (h ^ limb) * 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 29);
  }
};

// The place (a position in some array) of the last value met with each of 16 hashes: a matrix's
// rows repeat a few values in short patterns (a booleanity check's B row is 1 then -1), so a value
// met again is mostly found here before any table is searched. The caller compares the value at
// the place it gets, so a collision costs a search, never a wrong answer.
template <class Fr>
class recent_values {
 public:
  recent_values() { std::fill(std::begin(place_), std::end(place_), none); }
  // The slot for v: `none`, or a place where a value with v's slot was last met.
  std::size_t& slot(const Fr& v) noexcept { return place_[value_hash<Fr>{}(v) % slots]; }
  static constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

 private:
  static constexpr std::size_t slots = 16;
  std::size_t place_[slots];
};
}  // namespace detail

// The distinct values among `values` in the order they first appear, or nullopt where there are
// more than `limit`. Recent values (detail::recent_values) are compared before the table is
// searched. One thread; distinct_values_on below splits the work.
template <class Fr>
std::optional<std::vector<Fr>> distinct_values(std::span<const Fr> values,
                                               std::size_t limit = max_dictionary_values) {
  std::vector<Fr> distinct;
  std::unordered_map<Fr, uint32_t, detail::value_hash<Fr>> seen;
  detail::recent_values<Fr> recent;  // places in `distinct`
  for (const Fr& v : values) {
    std::size_t& slot = recent.slot(v);
    if (slot < distinct.size() && distinct[slot] == v) continue;
    const auto [at, inserted] = seen.try_emplace(v, static_cast<uint32_t>(distinct.size()));
    if (inserted) {
      if (distinct.size() == limit) return std::nullopt;
      distinct.push_back(v);
    }
    slot = at->second;
  }
  return distinct;
}

// distinct_values, the same table in the same order, on `pool`: each piece's own distinct values
// in the order met there, then the pieces' lists merged in piece order, each value kept where it
// is first met. A value's first place overall is in the first piece that holds it, at its first
// place there, so the merged order is the one-thread order. A matrix of 2^26 rows has ~10^8
// entries: one thread took seconds of a key's load.
// `piece`: values a piece (a test's smaller pieces exercise the merge).
template <class Fr>
std::optional<std::vector<Fr>> distinct_values_on(thread_pool& pool, std::span<const Fr> values,
                                                  std::size_t limit = max_dictionary_values,
                                                  std::size_t piece = std::size_t{1} << 20) {
  piece = std::max<std::size_t>(piece, 1);
  const std::size_t pieces = (values.size() + piece - 1) / piece;
  if (pieces <= 1) return distinct_values<Fr>(values, limit);
  std::vector<std::optional<std::vector<Fr>>> found(pieces);
  std::atomic<bool> over{false};  // a piece alone past the limit: the rest need not be searched
  pool.parallel_for(pieces, [&](std::size_t begin, std::size_t end) {
    for (std::size_t p = begin; p < end && !over.load(std::memory_order_relaxed); ++p) {
      found[p] = distinct_values<Fr>(values.subspan(p * piece, std::min(piece, values.size() - p * piece)), limit);
      if (!found[p]) over.store(true, std::memory_order_relaxed);
    }
  });
  if (over.load()) return std::nullopt;
  std::vector<Fr> distinct;
  std::unordered_map<Fr, uint32_t, detail::value_hash<Fr>> seen;
  for (const auto& list : found) {
    if (!list) return std::nullopt;  // one piece alone has more than `limit`
    for (const Fr& v : *list) {
      if (!seen.try_emplace(v, static_cast<uint32_t>(distinct.size())).second) continue;
      if (distinct.size() == limit) return std::nullopt;
      distinct.push_back(v);
    }
  }
  return distinct;
}

// Each value's index in a table of distinct values (at most max_dictionary_values of them).
template <class Fr>
class value_index {
 public:
  explicit value_index(std::span<const Fr> table) {
    index_.reserve(table.size());
    for (std::size_t i = 0; i < table.size(); ++i) index_.try_emplace(table[i], static_cast<uint16_t>(i));
  }
  // The index of v, or nullopt where v is not in the table.
  std::optional<uint16_t> of(const Fr& v) const {
    const auto at = index_.find(v);
    if (at == index_.end()) return std::nullopt;
    return at->second;
  }

  // The indexes of `values` into `out` (as many), or false where one is not in the table. One
  // thread's share of a matrix: recent values first, as in distinct_values.
  bool indexes(std::span<const Fr> values, uint16_t* out) const {
    detail::recent_values<Fr> recent;  // places in `values`
    for (std::size_t k = 0; k < values.size(); ++k) {
      std::size_t& slot = recent.slot(values[k]);
      if (slot < k && values[slot] == values[k]) {
        out[k] = out[slot];
        continue;
      }
      const auto i = of(values[k]);
      if (!i) return false;
      out[k] = *i;
      slot = k;
    }
    return true;
  }

 private:
  std::unordered_map<Fr, uint16_t, detail::value_hash<Fr>> index_;
};

}  // namespace cuzk::synth
