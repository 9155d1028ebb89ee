// SPDX-License-Identifier: MIT OR Apache-2.0
// snarkjs point encodings; see snarkjs_points.hpp for the layouts.
#include "formats/snarkjs_points.hpp"

#include <nlohmann/json.hpp>
#include <string>

#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"

namespace cuzk::formats::snarkjs {
namespace {

template <class G>
constexpr std::size_t coordinate_size = sizeof(typename G::field);

// ---- binary ----------------------------------------------------------------------------------

template <class Fq>
void put_montgomery(const Fq& a, uint8_t* out) {
  a.montgomery().to_bytes_le(out);
}

template <class G>
void put_coordinate(const typename G::field& a, uint8_t* out) {
  if constexpr (is_fp2<typename G::field>) {
    put_montgomery(a.c0, out);
    put_montgomery(a.c1, out + sizeof(a.c0));
  } else {
    put_montgomery(a, out);
  }
}

template <class G>
result<base_field<G>> get_montgomery(const uint8_t* in, const std::string& label) {
  using Fq = base_field<G>;
  const auto raw = Fq::repr::from_bytes_le(in);
  if (raw >= Fq::modulus) {
    return status(errc::out_of_range, group_label<G>() + " " + label +
                                          ": Montgomery coordinate not below the modulus q (found " +
                                          raw.to_hex() + ", q = " + Fq::modulus.to_hex() + ")");
  }
  return Fq::from_montgomery(raw);
}

template <class G>
result<typename G::field> get_coordinate(const uint8_t* in, char xy) {
  if constexpr (is_fp2<typename G::field>) {
    using Fq = base_field<G>;
    auto c0 = get_montgomery<G>(in, coordinate_label<G>(xy, 0));
    if (!c0) return c0.error();
    auto c1 = get_montgomery<G>(in + sizeof(Fq), coordinate_label<G>(xy, 1));
    if (!c1) return c1.error();
    return typename G::field{*c0, *c1};
  } else {
    return get_montgomery<G>(in, coordinate_label<G>(xy, 0));
  }
}

// ---- JSON ------------------------------------------------------------------------------------

template <class G>
nlohmann::json coordinate_json(const typename G::field& a) {
  if constexpr (is_fp2<typename G::field>) {
    return nlohmann::json::array({a.c0.to_decimal(), a.c1.to_decimal()});
  } else {
    return a.to_decimal();
  }
}

// A decimal string < q. Anything else (a number, hex, a sign, an empty string) is rejected:
// snarkjs only ever writes plain decimal strings, and accepting more would hide a broken file.
template <class G>
result<base_field<G>> decimal_from_json(const nlohmann::json& j, const std::string& label) {
  using Fq = base_field<G>;
  const std::string where = group_label<G>() + " " + label;
  if (!j.is_string()) return status(errc::parse_error, where + ": expected a decimal string, found " + j.dump());
  const auto& s = j.get_ref<const std::string&>();
  const bool digits_only = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
  const auto v = digits_only ? Fq::repr::parse(s) : std::nullopt;
  if (!v) {
    return status(errc::parse_error,
                  where + ": expected a decimal string below q = " + Fq::modulus.to_decimal() + ", found " + j.dump());
  }
  if (*v >= Fq::modulus) {
    return status(errc::out_of_range, where + ": coordinate not below the modulus q (found " + s +
                                          ", q = " + Fq::modulus.to_decimal() + ")");
  }
  return Fq::from_canonical_unchecked(*v);
}

template <class G>
result<typename G::field> coordinate_from_json(const nlohmann::json& j, char xy) {
  if constexpr (is_fp2<typename G::field>) {
    if (!j.is_array() || j.size() != 2) {
      return status(errc::parse_error, group_label<G>() + " " + std::string(1, xy) +
                                           ": expected an array of two decimal strings [c0, c1], found " + j.dump());
    }
    auto c0 = decimal_from_json<G>(j[0], coordinate_label<G>(xy, 0));
    if (!c0) return c0.error();
    auto c1 = decimal_from_json<G>(j[1], coordinate_label<G>(xy, 1));
    if (!c1) return c1.error();
    return typename G::field{*c0, *c1};
  } else {
    return decimal_from_json<G>(j, coordinate_label<G>(xy, 0));
  }
}

}  // namespace

template <class G>
void encode_binary(const typename G::affine& p, std::span<uint8_t, binary_size<G>> out) {
  // Infinity is (0, 0), and zero's Montgomery form is zero: the all-zero encoding falls out.
  put_coordinate<G>(p.x, out.data());
  put_coordinate<G>(p.y, out.data() + coordinate_size<G>);
}

template <class G>
result<typename G::affine> decode_binary(std::span<const uint8_t> in, subgroup_check check) {
  if (in.size() != binary_size<G>) {
    return status(errc::parse_error, group_label<G>() + " point: expected " + std::to_string(binary_size<G>) +
                                         " bytes, found " + std::to_string(in.size()));
  }
  auto x = get_coordinate<G>(in.data(), 'x');
  if (!x) return x.error();
  auto y = get_coordinate<G>(in.data() + coordinate_size<G>, 'y');
  if (!y) return y.error();
  const typename G::affine p{*x, *y};
  CUZK_TRY(check_point<G>(p, check));
  return p;
}

template <class G>
nlohmann::json to_json(const typename G::affine& p) {
  using F = typename G::field;
  if (p.is_infinity()) {
    return nlohmann::json::array({coordinate_json<G>(F::zero()), coordinate_json<G>(F::one()),
                                  coordinate_json<G>(F::zero())});
  }
  return nlohmann::json::array({coordinate_json<G>(p.x), coordinate_json<G>(p.y), coordinate_json<G>(F::one())});
}

template <class G>
result<typename G::affine> from_json(const nlohmann::json& j, subgroup_check check) {
  using F = typename G::field;
  using A = typename G::affine;
  if (!j.is_array() || (j.size() != 2 && j.size() != 3)) {
    return status(errc::parse_error,
                  group_label<G>() + " point: expected an array [x, y, z] or [x, y], found " + j.dump());
  }
  auto x = coordinate_from_json<G>(j[0], 'x');
  if (!x) return x.error();
  auto y = coordinate_from_json<G>(j[1], 'y');
  if (!y) return y.error();
  A p{*x, *y};
  if (j.size() == 3) {
    auto z = coordinate_from_json<G>(j[2], 'z');
    if (!z) return z.error();
    if (z->is_zero()) {
      // Projective infinity: snarkjs writes (0, 1, 0); (0, 0, 0) is accepted too.
      if (!p.x.is_zero() || !(p.y.is_zero() || p.y == F::one())) {
        return status(errc::parse_error, group_label<G>() + " point: z = 0 (infinity) needs x = 0 and y = 1 (or 0), found " +
                                             j.dump());
      }
      return A::infinity();
    }
    if (*z != F::one()) {
      return status(errc::parse_error,
                    group_label<G>() + " z: expected 1 (affine) or 0 (infinity), found " + j[2].dump());
    }
  }
  CUZK_TRY(check_point<G>(p, check));
  return p;
}

#define CUZK_SNARKJS_POINTS(G)                                                                          \
  template void encode_binary<G>(const G::affine&, std::span<uint8_t, binary_size<G>>);                \
  template result<G::affine> decode_binary<G>(std::span<const uint8_t>, subgroup_check);               \
  template nlohmann::json to_json<G>(const G::affine&);                                                \
  template result<G::affine> from_json<G>(const nlohmann::json&, subgroup_check)

CUZK_SNARKJS_POINTS(bn254_g1);
CUZK_SNARKJS_POINTS(bn254_g2);
CUZK_SNARKJS_POINTS(bls12_381_g1);
CUZK_SNARKJS_POINTS(bls12_381_g2);

}  // namespace cuzk::formats::snarkjs
