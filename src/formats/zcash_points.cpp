// SPDX-License-Identifier: MIT OR Apache-2.0
// ZCash BLS12-381 point encodings; see zcash_points.hpp for the layout and the flags.
#include "formats/zcash_points.hpp"

#include <algorithm>
#include <string>

#include "curves/bls12_381_groups.hpp"
#include "formats/point_validation.hpp"

namespace cuzk::formats::zcash {
namespace {

constexpr uint8_t compression_flag = 0x80;
constexpr uint8_t infinity_flag = 0x40;
constexpr uint8_t sign_flag = 0x20;
constexpr uint8_t all_flags = compression_flag | infinity_flag | sign_flag;

template <class G>
constexpr std::size_t fq_size = sizeof(base_field<G>);
static_assert(bls12_381::fq::bits + 3 == 8 * fq_size<bls12_381_g1>, "the flags use the three spare top bits");

// y > (q - 1)/2 as integers.
template <class Fq>
bool is_larger_root(const Fq& y) {
  return y.to_canonical().compare(Fq::half_minus) > 0;
}
// Lexicographic order on (c1, c0) for Fq2.
template <class F>
bool is_lexicographically_largest(const F& y) {
  if constexpr (is_fp2<F>) {
    if (!y.c1.is_zero()) return is_larger_root(y.c1);
    return is_larger_root(y.c0);
  } else {
    return is_larger_root(y);
  }
}

// Big-endian, G2 as c1 || c0.
template <class G>
void put_coordinate(const typename G::field& a, uint8_t* out) {
  if constexpr (is_fp2<typename G::field>) {
    a.c1.to_bytes_be(out);
    a.c0.to_bytes_be(out + fq_size<G>);
  } else {
    a.to_bytes_be(out);
  }
}

// `in` with the flag bits of its first byte already cleared by the caller when they are flags.
template <class G>
result<typename G::field> get_coordinate(const uint8_t* in, char xy) {
  using Fq = base_field<G>;
  if constexpr (is_fp2<typename G::field>) {
    auto c1 = checked_coordinate<G>(Fq::repr::from_bytes_be(in), coordinate_label<G>(xy, 1));
    if (!c1) return c1.error();
    auto c0 = checked_coordinate<G>(Fq::repr::from_bytes_be(in + fq_size<G>), coordinate_label<G>(xy, 0));
    if (!c0) return c0.error();
    return typename G::field{*c0, *c1};
  } else {
    return checked_coordinate<G>(Fq::repr::from_bytes_be(in), coordinate_label<G>(xy, 0));
  }
}

std::string hex_byte(uint8_t b) {
  static constexpr char digits[] = "0123456789abcdef";
  return std::string("0x") + digits[b >> 4] + digits[b & 0xf];
}

template <class G>
status flag_error(const std::string& what, uint8_t first) {
  return {errc::parse_error, group_label<G>() + " ZCash encoding: " + what + " (first byte " + hex_byte(first) + ")"};
}

template <class G>
status check_length(std::span<const uint8_t> in, std::size_t expected, const char* form) {
  if (in.size() == expected) return status::ok();
  return {errc::parse_error, group_label<G>() + " ZCash " + form + " encoding: expected " + std::to_string(expected) +
                                 " bytes, found " + std::to_string(in.size())};
}

// Infinity: the flag byte must be exactly `flags` and every other bit zero.
template <class G>
result<typename G::affine> decode_infinity(std::span<const uint8_t> in, uint8_t flags) {
  if (in[0] != flags) return flag_error<G>("infinity flag set together with the sign flag or coordinate bits", in[0]);
  for (std::size_t i = 1; i < in.size(); ++i) {
    if (in[i] != 0) return flag_error<G>("infinity flag set but byte " + std::to_string(i) + " is not zero", in[0]);
  }
  return G::affine::infinity();
}

}  // namespace

template <class G>
std::array<uint8_t, compressed_size<G>> encode_compressed(const typename G::affine& p) {
  std::array<uint8_t, compressed_size<G>> out{};
  if (p.is_infinity()) {
    out[0] = compression_flag | infinity_flag;
    return out;
  }
  put_coordinate<G>(p.x, out.data());
  out[0] |= compression_flag;
  if (is_lexicographically_largest(p.y)) out[0] |= sign_flag;
  return out;
}

template <class G>
std::array<uint8_t, uncompressed_size<G>> encode_uncompressed(const typename G::affine& p) {
  std::array<uint8_t, uncompressed_size<G>> out{};
  if (p.is_infinity()) {
    out[0] = infinity_flag;
    return out;
  }
  put_coordinate<G>(p.x, out.data());
  put_coordinate<G>(p.y, out.data() + compressed_size<G>);
  return out;
}

template <class G>
result<typename G::affine> decode_compressed(std::span<const uint8_t> in) {
  CUZK_TRY(check_length<G>(in, compressed_size<G>, "compressed"));
  const uint8_t first = in[0];
  if (!(first & compression_flag)) return flag_error<G>("compression flag clear in a compressed encoding", first);
  if (first & infinity_flag) return decode_infinity<G>(in, compression_flag | infinity_flag);

  std::array<uint8_t, compressed_size<G>> body;
  std::copy(in.begin(), in.end(), body.begin());
  body[0] &= static_cast<uint8_t>(~all_flags);
  auto x = get_coordinate<G>(body.data(), 'x');
  if (!x) return x.error();
  const auto y = (x->sqr() * *x + G::b).sqrt();
  if (!y) {
    return status(errc::not_on_curve,
                  group_label<G>() + " point: x^3 + b is not a square, no point with this x on the curve " +
                      curve_equation<G>());
  }
  const bool want_largest = (first & sign_flag) != 0;
  const typename G::affine p{*x, is_lexicographically_largest(*y) == want_largest ? *y : -*y};
  CUZK_TRY(check_point<G>(p, subgroup_check::check));
  return p;
}

template <class G>
result<typename G::affine> decode_uncompressed(std::span<const uint8_t> in) {
  CUZK_TRY(check_length<G>(in, uncompressed_size<G>, "uncompressed"));
  const uint8_t first = in[0];
  if (first & compression_flag) return flag_error<G>("compression flag set in an uncompressed encoding", first);
  if (first & infinity_flag) return decode_infinity<G>(in, infinity_flag);
  if (first & sign_flag) return flag_error<G>("sign flag set in an uncompressed encoding", first);
  auto x = get_coordinate<G>(in.data(), 'x');
  if (!x) return x.error();
  auto y = get_coordinate<G>(in.data() + compressed_size<G>, 'y');
  if (!y) return y.error();
  const typename G::affine p{*x, *y};
  CUZK_TRY(check_point<G>(p, subgroup_check::check));
  return p;
}

template <class G>
result<typename G::affine> decode(std::span<const uint8_t> in) {
  if (in.empty()) return status(errc::parse_error, group_label<G>() + " ZCash encoding: empty input");
  return (in[0] & compression_flag) ? decode_compressed<G>(in) : decode_uncompressed<G>(in);
}

#define CUZK_ZCASH_POINTS(G)                                                                   \
  template std::array<uint8_t, compressed_size<G>> encode_compressed<G>(const G::affine&);     \
  template std::array<uint8_t, uncompressed_size<G>> encode_uncompressed<G>(const G::affine&); \
  template result<G::affine> decode_compressed<G>(std::span<const uint8_t>);                   \
  template result<G::affine> decode_uncompressed<G>(std::span<const uint8_t>);                 \
  template result<G::affine> decode<G>(std::span<const uint8_t>)

CUZK_ZCASH_POINTS(bls12_381_g1);
CUZK_ZCASH_POINTS(bls12_381_g2);

}  // namespace cuzk::formats::zcash
