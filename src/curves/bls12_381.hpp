// SPDX-License-Identifier: MIT OR Apache-2.0
// BLS12-381: every constant of the curve lives here.
//
// Fq and Fr are declared by their moduli; all Montgomery constants derive from them (ff/fp.hpp).
// G1: y^2 = x^3 + 4 over Fq. G2: the sextic M-type twist y^2 = x^3 + 4(1 + u) over Fq2.
// Fq12 is built as Fq2 -> Fq6 = Fq2[v]/(v^3 - xi) -> Fq12 = Fq6[w]/(w^2 - v) with xi = 1 + u,
// the tower snarkjs/ffjavascript print vk_alphabeta_12 in.
#pragma once

#include <cstdint>

#include "ff/bigint.hpp"
#include "ff/fp.hpp"
#include "ff/fp2.hpp"

namespace cuzk {

struct bls12_381 {
  static constexpr const char* name = "bls12-381";
  static constexpr const char* snarkjs_name = "bls12381";

  struct fq_params {
    static constexpr auto modulus = ff::bigint<6>::literal(
        "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
  };
  struct fr_params {
    static constexpr auto modulus =
        ff::bigint<4>::literal("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
  };
  using fq = ff::fp<fq_params>;
  using fr = ff::fp<fr_params>;
  using fq2 = ff::fp2<fq>;

  static_assert(fr::two_adicity == 32);

  // Multiplicative generator of Fr used for roots of unity (ffjavascript's Fr.nqr).
  static constexpr uint64_t fr_generator = 5;

  // G1: y^2 = x^3 + b.
  static constexpr fq g1_b = fq::literal("4");
  static constexpr fq g1_gen_x = fq::literal(
      "0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
  static constexpr fq g1_gen_y = fq::literal(
      "0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");

  // Tower non-residue xi = 1 + u.
  static constexpr fq2 xi{fq::literal("1"), fq::literal("1")};

  // G2: y^2 = x^3 + b*xi (M-type sextic twist), i.e. b' = 4(1 + u).
  static constexpr fq2 g2_b = xi.mul_by_base(g1_b);

  // G2 generator, coordinates as c0 + c1*u.
  static constexpr fq2 g2_gen_x{
      fq::literal("0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
      fq::literal("0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")};
  static constexpr fq2 g2_gen_y{
      fq::literal("0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
      fq::literal("0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")};

  // The BLS parameter x = -0xd201000000010000; the ate Miller loop runs over |x|.
  static constexpr uint64_t bls_x = 0xd201000000010000ULL;
  static constexpr bool bls_x_is_negative = true;
};

}  // namespace cuzk
