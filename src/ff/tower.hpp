// SPDX-License-Identifier: MIT OR Apache-2.0
// What the Fq6/Fq12 towers need from a curve, and the constants derived from it.
//
// Both curves build Fq12 the same way: Fq6 = Fq2[v]/(v^3 - xi), Fq12 = Fq6[w]/(w^2 - v), so
// w^6 = xi. A curve therefore hands the tower only two things: its Fq2 type and xi. Everything
// else is derived here from xi:
//
//  - multiplication by xi, which the tower does at every reduction of v^3 or w^6. When xi = k + u
//    for a small integer k (9 + u on BN254, 1 + u on BLS12-381), (a0 + a1 u)(k + u) is
//    (k a0 - a1) + (a0 + k a1) u: a few additions instead of an Fq2 multiplication.
//  - the Frobenius coefficients gamma[k][i] = xi^(i (q^k - 1) / 6) = w^(i (q^k - 1)), the factor
//    that w^i picks up under x -> x^(q^k). They are computed by the compiler: only
//    g = xi^((q - 1) / 6) needs an exponentiation; then gamma_k = xi^((q^k - 1)/6) follows from
//    (q^k - 1)/6 = (q - 1)/6 + q (q^(k-1) - 1)/6, i.e. gamma_k = g * conj(gamma_(k-1)), since
//    raising an Fq2 element to the q is conjugation.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>

#include "ff/bigint.hpp"
#include "ff/fp2.hpp"

namespace cuzk::ff {

// A curve struct (curves/bn254.hpp, curves/bls12_381.hpp) satisfies this as it is.
template <class P>
concept tower_params = requires {
  typename P::fq2;
  { P::xi } -> std::convertible_to<typename P::fq2>;
};

template <tower_params P>
struct tower {
  using fq2 = typename P::fq2;
  using fq = typename fq2::base;

  // k when xi = k + u with 0 <= k <= 64, otherwise -1 (then mul_by_xi is a full multiplication).
  static constexpr int xi_small_c0 = [] {
    if (!P::xi.c1.is_one()) return -1;
    for (int k = 0; k <= 64; ++k)
      if (P::xi.c0 == fq::from_uint(static_cast<uint64_t>(k))) return k;
    return -1;
  }();

  // k * a by double-and-add; k is a compile-time constant so the loop unrolls into additions.
  template <int K>
  static constexpr fq2 times_small(const fq2& a) {
    static_assert(K >= 0);
    if constexpr (K == 0) {
      return fq2::zero();
    } else if constexpr (K == 1) {
      return a;
    } else if constexpr (K % 2 == 0) {
      return times_small<K / 2>(a).dbl();
    } else {
      return times_small<K - 1>(a) + a;
    }
  }

  static constexpr fq2 mul_by_xi(const fq2& a) {
    if constexpr (xi_small_c0 >= 0) {
      const fq2 ka = times_small<xi_small_c0>(a);
      return {ka.c0 - a.c1, a.c0 + ka.c1};
    } else {
      return a * P::xi;
    }
  }

  // gamma[k][i] = xi^(i (q^k - 1)/6) for k = 0..11 (the order of Frobenius on Fq12), i = 0..5.
  using frobenius_table = std::array<std::array<fq2, 6>, 12>;
  static constexpr frobenius_table gamma = [] {
    auto e = mont::sub_one(fq::modulus);
    const uint64_t rem = e.div_small(6);
    if (rem != 0) throw "tower: q - 1 must be divisible by 6 for a sextic twist";
    const fq2 g = P::xi.pow(e);
    frobenius_table t{};
    fq2 gk = fq2::one();  // gamma_0 = 1
    for (std::size_t k = 0; k < 12; ++k) {
      if (k > 0) gk = g * gk.conjugate();
      fq2 acc = fq2::one();
      for (std::size_t i = 0; i < 6; ++i) {
        t[k][i] = acc;
        acc *= gk;
      }
    }
    return t;
  }();
};

}  // namespace cuzk::ff
