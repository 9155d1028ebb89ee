// SPDX-License-Identifier: MIT OR Apache-2.0
// What the GPU prover's test files share: the skip where no GPU answers (CI has none), and the two
// curves every typed suite runs on.
#pragma once

#include <gtest/gtest.h>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "groth16/prover_choice.hpp"

#define CUZK_REQUIRE_GPU()                                                                    \
  do {                                                                                        \
    if (const auto c = ::cuzk::groth16::choose_prover(::cuzk::groth16::prover_kind::automatic); \
        c->kind != ::cuzk::groth16::prover_kind::gpu)                                         \
      GTEST_SKIP() << "no usable CUDA device (" << c->reason                                  \
                   << "); the gpu tests need an NVIDIA GPU (scripts/gpu/prove_check.sh)"; \
  } while (0)

namespace cuzk::groth16::test {

using both_curves = ::testing::Types<bn254, bls12_381>;

}  // namespace cuzk::groth16::test
