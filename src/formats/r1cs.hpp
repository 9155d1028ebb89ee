// SPDX-License-Identifier: MIT OR Apache-2.0
// circom's .r1cs: the constraint system A·w ∘ B·w = C·w over the scalar field r.
//
// Layout (iden3 r1cs_bin_format, version 1; sections in any order, circom writes 2, 1, 3):
//   section 1, header: u32 n8, prime r (n8 bytes LE), u32 nWires, u32 nPubOut, u32 nPubIn,
//     u32 nPrvIn, u64 nLabels, u32 nConstraints;
//   section 2, constraints: nConstraints x (A, B, C), each linear combination a u32 count then
//     count x (u32 wire id, n8-byte coefficient, plain LE);
//   section 3: wire -> label map (u64 per wire), sections 4 and 5: PLONK custom gates; not read.
// Wire 0 is the constant 1, then public outputs, public inputs, private inputs, internal wires.
//
// open() validates everything once, in one pass over section 2: the prime is bn254's or
// bls12-381's r, every wire id is < nWires, every coefficient < r, exactly nConstraints
// constraints and nothing after them. Iteration afterwards is unchecked and allocation-free: a
// constraint is three views into the mapping (terms have a fixed stride of 4 + 32 bytes).
//
// Thread safety: immutable after open; constraints() may be walked from any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>

#include "base/result.hpp"
#include "formats/binfile.hpp"
#include "formats/curve_id.hpp"
#include "formats/fr_bytes.hpp"

namespace cuzk::formats {

struct r1cs_header {
  uint32_t n8 = 0;
  ff::bigint<4> prime;  // the scalar field r
  curve_id curve = curve_id::bn254;
  uint32_t n_wires = 0;  // including wire 0
  uint32_t n_pub_out = 0;
  uint32_t n_pub_in = 0;
  uint32_t n_prv_in = 0;
  uint64_t n_labels = 0;
  uint32_t n_constraints = 0;

  // Public signals, not counting wire 0 (a zkey's nPublic).
  uint32_t n_public() const { return n_pub_out + n_pub_in; }
};

// One term of a linear combination: coefficient (plain LE, < r) times wire.
struct r1cs_term {
  uint32_t wire;
  const fr_bytes* coef;
};

// A linear combination, in place in the mapping.
class linear_combination {
 public:
  static constexpr std::size_t term_size = 4 + sizeof(fr_bytes);

  linear_combination() = default;
  linear_combination(const uint8_t* terms, uint32_t n) : p_(terms), n_(n) {}

  std::size_t size() const noexcept { return n_; }
  bool empty() const noexcept { return n_ == 0; }
  r1cs_term operator[](std::size_t i) const noexcept {
    const uint8_t* t = p_ + i * term_size;
    uint32_t wire;
    std::memcpy(&wire, t, 4);
    return {wire, reinterpret_cast<const fr_bytes*>(t + 4)};
  }

 private:
  const uint8_t* p_ = nullptr;
  uint32_t n_ = 0;
};

struct r1cs_constraint {
  linear_combination a, b, c;
};

class r1cs {
 public:
  // Forward iteration over section 2 (already validated by open()).
  class constraint_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = r1cs_constraint;
    using difference_type = std::ptrdiff_t;
    using pointer = const r1cs_constraint*;
    using reference = const r1cs_constraint&;

    constraint_iterator() = default;
    constraint_iterator(const uint8_t* p, const uint8_t* end) : next_(p), end_(end) { load(); }
    reference operator*() const { return cur_; }
    pointer operator->() const { return &cur_; }
    constraint_iterator& operator++() {
      load();
      return *this;
    }
    constraint_iterator operator++(int) {
      auto t = *this;
      ++*this;
      return t;
    }
    bool operator==(const constraint_iterator& o) const { return at_ == o.at_; }

   private:
    void load();
    const uint8_t* at_ = nullptr;    // start of the current constraint (end_ when done)
    const uint8_t* next_ = nullptr;  // start of the following one
    const uint8_t* end_ = nullptr;
    r1cs_constraint cur_;
  };
  struct constraint_range {
    const uint8_t *begin_, *end_;
    constraint_iterator begin() const { return {begin_, end_}; }
    constraint_iterator end() const { return {end_, end_}; }
  };

  static result<r1cs> open(const std::string& path);
  static result<r1cs> from_binfile(binfile file);

  const r1cs_header& header() const noexcept { return header_; }
  constraint_range constraints() const noexcept {
    return {constraints_.data(), constraints_.data() + constraints_.size()};
  }
  const binfile& file() const noexcept { return file_; }

 private:
  explicit r1cs(binfile f) : file_(std::move(f)) {}
  binfile file_;
  r1cs_header header_;
  std::span<const uint8_t> constraints_;
};

}  // namespace cuzk::formats
