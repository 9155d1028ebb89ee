// SPDX-License-Identifier: MIT OR Apache-2.0
// BN254 ("bn128" in snarkjs, alt_bn128 in Ethereum): every constant of the curve lives here.
//
// Fq and Fr are declared by their moduli; all Montgomery constants derive from them (ff/fp.hpp).
// G1: y^2 = x^3 + 3 over Fq. G2: the sextic D-type twist y^2 = x^3 + 3/xi over Fq2 with
// xi = 9 + u. Fq12 is built as Fq2 -> Fq6 = Fq2[v]/(v^3 - xi) -> Fq12 = Fq6[w]/(w^2 - v), the
// tower snarkjs/ffjavascript print vk_alphabeta_12 in.
#pragma once

#include <cstdint>

#include "ff/bigint.hpp"
#include "ff/fp.hpp"
#include "ff/fp2.hpp"

namespace cuzk {

struct bn254 {
  static constexpr const char* name = "bn254";
  static constexpr const char* snarkjs_name = "bn128";

  struct fq_params {
    static constexpr auto modulus = ff::bigint<4>::literal(
        "21888242871839275222246405745257275088696311157297823662689037894645226208583");
  };
  struct fr_params {
    static constexpr auto modulus = ff::bigint<4>::literal(
        "21888242871839275222246405745257275088548364400416034343698204186575808495617");
  };
  using fq = ff::fp<fq_params>;
  using fr = ff::fp<fr_params>;
  using fq2 = ff::fp2<fq>;

  static_assert(fr::two_adicity == 28, "snarkjs relies on 2^28 being the largest power-of-two domain");

  // Multiplicative generator of Fr used for roots of unity (ffjavascript's Fr.nqr).
  static constexpr uint64_t fr_generator = 5;

  // G1: y^2 = x^3 + b, generator (1, 2).
  static constexpr fq g1_b = fq::literal("3");
  static constexpr fq g1_gen_x = fq::literal("1");
  static constexpr fq g1_gen_y = fq::literal("2");

  // Tower non-residue xi = 9 + u (Fq6 = Fq2[v]/(v^3 - xi)).
  static constexpr fq2 xi{fq::literal("9"), fq::literal("1")};

  // G2: y^2 = x^3 + b/xi (D-type sextic twist).
  static constexpr fq2 g2_b = fq2(g1_b) * xi.inverse();

  // G2 generator (EIP-197), coordinates as c0 + c1*u.
  static constexpr fq2 g2_gen_x{
      fq::literal("10857046999023057135944570762232829481370756359578518086990519993285655852781"),
      fq::literal("11559732032986387107991004021392285783925812861821192530917403151452391805634")};
  static constexpr fq2 g2_gen_y{
      fq::literal("8495653923123431417604973247489272438418190587263600148770280649306958101930"),
      fq::literal("4082367875863433681332203403145435568316851327593401208105741076214120093531")};

  // The BN parameter x (the curve is built from p(x), r(x)); the optimal ate loop runs over
  // 6x + 2. x is positive for BN254.
  static constexpr uint64_t bn_x = 4965661367192848881ULL;
  static constexpr bool bn_x_is_negative = false;
};

}  // namespace cuzk
