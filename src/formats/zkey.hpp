// SPDX-License-Identifier: MIT OR Apache-2.0
// snarkjs's Groth16 proving key (.zkey, protocol 1), used in place.
//
// Sections (any order in the file; as snarkjs's zkey reader and writer reads them):
//   1 u32 protocol (1 = Groth16)
//   2 header: u32 n8q, q; u32 n8r, r; u32 nVars, u32 nPublic, u32 domainSize;
//     alpha1 (G1), beta1 (G1), beta2 (G2), gamma2 (G2), delta1 (G1), delta2 (G2), in that order
//     (the comment in snarkjs's zkey_utils.js lists delta1 before beta2; its code does not)
//   3 IC: nPublic + 1 G1            4 coefs: u32 nCoefs, then nCoefs records (see zkey_coef_record)
//   5 A: nVars G1    6 B1: nVars G1    7 B2: nVars G2    8 C: nVars - nPublic - 1 G1
//   9 H: domainSize G1             10 csHash (64 bytes), u32 nContributions, contributions
//
// Points are affine, each coordinate n8q bytes LE in Montgomery form (R = 2^(8 n8q) = 2^(64 N)),
// G2 coordinates c0 then c1, infinity all zero. That is exactly the object representation of
// ec::affine<fp> and ec::affine<fp2<fp>> (static_assert'd below), so the point sections are
// spans of our point types over the mapping, as rapidsnark casts them.
//
// Alignment. Our points contain uint64_t limbs (alignment 8), but a section's file offset is only
// a multiple of 4: point sections are multiples of 8 bytes and section headers 12, so in a snarkjs
// file sections 5..9 alternate between aligned and misaligned by 4, depending on the parity of
// nCoefs. Reading a uint64_t through a misaligned pointer is undefined behaviour in C++ (x86 would
// tolerate the loads, but the compiler may assume alignment when vectorising), so a misaligned
// point section is copied once, at open, into an owned aligned buffer; aligned sections are used in
// place. copied_bytes() says how much was copied. A consumer that only needs the bytes (a GPU
// upload) can use section_bytes() and never touch the copy. The coefficient records have
// alignment 4, which every section offset satisfies; otherwise they are copied the same way.
// (In-place use relies on the mapping holding objects of these trivially copyable types, which is
// how every zero-copy reader of this format works; C++23's start_lifetime_as names it.)
//
// What open() checks: protocol 1; q and r the primes of the curve C (detect_curve() tells which
// curve a file is for); domainSize a power of two, >= 2, and at most 2^(2-adicity of r); nVars >
// nPublic; every section's size against nVars, nPublic, domainSize (expected and found bytes);
// the six header points and the IC points canonical, on the curve and in the subgroup. What it
// does not check (it is linear in the key and can take seconds for big keys): the points of
// sections 5..9, see validate_points(), and the coefficient records, see validate_coefs() and the
// checked accessor coef().
//
// Thread safety: immutable after open; validate_* use the global thread pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "curves/groups.hpp"
#include "formats/binfile.hpp"
#include "formats/curve_id.hpp"
#include "formats/fr_bytes.hpp"
#include "formats/point_validation.hpp"

namespace cuzk::formats {

// Section ids of a Groth16 zkey.
enum zkey_section : uint32_t {
  zkey_protocol = 1,
  zkey_header = 2,
  zkey_ic = 3,
  zkey_coefs = 4,
  zkey_a = 5,
  zkey_b1 = 6,
  zkey_b2 = 7,
  zkey_c = 8,
  zkey_h = 9,
  zkey_contributions = 10,
};

// One record of section 4, in place. matrix 0 = A, 1 = B (C is never stored: the prover takes
// c = a∘b). value is c·R^2 mod r as a plain LE integer ("double Montgomery", R = 2^256): a
// Montgomery multiplication of it by a plain witness value w gives the Montgomery form of c·w,
//   Fr::from_montgomery(value) * Fr::from_montgomery(w) == c·w,
// which is how snarkjs and rapidsnark use it without converting either operand.
struct zkey_coef_record {
  uint32_t matrix;
  uint32_t constraint;
  uint32_t signal;
  fr_bytes value;
};
static_assert(sizeof(zkey_coef_record) == 44 && alignof(zkey_coef_record) == 4 &&
              std::is_standard_layout_v<zkey_coef_record>);

// A decoded, checked coefficient: value is c itself (not c·R^2).
template <class C>
struct zkey_coef {
  uint32_t matrix;  // 0 = A, 1 = B
  uint32_t constraint;
  uint32_t signal;
  typename C::fr value;
  bool operator==(const zkey_coef&) const = default;
};

template <class C>
struct zkey_header_data {
  uint32_t n8q = 0, n8r = 0;
  uint32_t n_vars = 0;       // signals, including wire 0
  uint32_t n_public = 0;     // public signals, not counting wire 0
  uint32_t domain_size = 0;  // a power of two >= nConstraints + nPublic + 1
  g1_affine<C> alpha1, beta1, delta1;
  g2_affine<C> beta2, gamma2, delta2;
};

// The in-memory point layout is the file's (see above).
template <class C>
inline constexpr bool points_match_file_layout =
    sizeof(g1_affine<C>) == 2 * C::fq::num_bytes &&
    sizeof(g2_affine<C>) ==
        4 * C::fq::num_bytes&& std::is_standard_layout_v<g1_affine<C>>&& std::is_standard_layout_v<g2_affine<
                C>>&& std::is_trivially_copyable_v<g1_affine<C>>&& std::is_trivially_copyable_v<g2_affine<C>>;
static_assert(points_match_file_layout<bn254> && points_match_file_layout<bls12_381>);

// The curve a zkey file is for, from its header's q (and r, which must belong to the same curve).
result<curve_id> detect_curve(const std::string& zkey_path);

template <class C>
class zkey {
 public:
  using fr = typename C::fr;
  using g1a = g1_affine<C>;
  using g2a = g2_affine<C>;

  static result<zkey> open(const std::string& path);
  static result<zkey> from_binfile(binfile file);

  zkey(zkey&&) noexcept = default;
  zkey& operator=(zkey&&) noexcept = default;

  const zkey_header_data<C>& header() const noexcept { return header_; }
  uint32_t n_vars() const noexcept { return header_.n_vars; }
  uint32_t n_public() const noexcept { return header_.n_public; }
  uint32_t domain_size() const noexcept { return header_.domain_size; }

  std::span<const g1a> ic() const noexcept { return ic_; }  // nPublic + 1
  std::span<const g1a> a() const noexcept { return a_; }    // nVars
  std::span<const g1a> b1() const noexcept { return b1_; }  // nVars
  std::span<const g2a> b2() const noexcept { return b2_; }  // nVars
  std::span<const g1a> c() const noexcept { return c_; }    // nVars - nPublic - 1, for signals nPublic+1..
  std::span<const g1a> h() const noexcept { return h_; }    // domainSize

  // Raw records, unchecked (see validate_coefs()).
  std::span<const zkey_coef_record> coef_records() const noexcept { return coefs_; }
  // Record i decoded and checked: matrix 0 or 1, constraint < domainSize, signal < nVars,
  // value < r. Errors name the file and the record.
  result<zkey_coef<C>> coef(std::size_t i) const;
  // Every record, as coef() checks it; the first bad one is reported.
  status validate_coefs() const;

  // Every point of sections 3, 5..9 canonical and on the curve, and, with subgroup_check::check,
  // in the subgroup. Parallel; the error names the section and the index of the first bad point.
  status validate_points(subgroup_check check) const;

  // Section 10: the 64-byte circuit hash and the contributions (count, then raw records); empty
  // when the file has no section 10.
  std::span<const uint8_t> cs_hash() const noexcept { return cs_hash_; }
  uint32_t n_contributions() const noexcept { return n_contributions_; }
  std::span<const uint8_t> contributions() const noexcept { return contributions_; }

  // A section's bytes in the mapping, whatever its alignment.
  std::span<const uint8_t> section_bytes(uint32_t id) const;
  // Bytes copied at open because their section was misaligned.
  std::size_t copied_bytes() const noexcept { return copied_bytes_; }

  const binfile& file() const noexcept { return file_; }

 private:
  explicit zkey(binfile f) : file_(std::move(f)) {}
  status parse();
  template <class T>
  result<std::span<const T>> points_section(uint32_t id, const char* what, uint64_t count,
                                            const char* count_expr);

  binfile file_;
  zkey_header_data<C> header_;
  std::span<const g1a> ic_, a_, b1_, c_, h_;
  std::span<const g2a> b2_;
  std::span<const zkey_coef_record> coefs_;
  std::span<const uint8_t> cs_hash_, contributions_;
  uint32_t n_contributions_ = 0;
  // Owned copies of misaligned sections (8-byte aligned storage).
  std::vector<std::unique_ptr<uint64_t[]>> copies_;
  std::size_t copied_bytes_ = 0;
};

extern template class zkey<bn254>;
extern template class zkey<bls12_381>;

}  // namespace cuzk::formats
