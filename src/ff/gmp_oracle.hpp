// SPDX-License-Identifier: MIT OR Apache-2.0
// Test-only: GMP as an independent oracle for field arithmetic. Converts between our canonical
// integers and mpz_class so every fast path can be checked against plain big-integer arithmetic.
#pragma once

#include <gmpxx.h>

#include "ff/bigint.hpp"

namespace cuzk::ff::testing {

template <std::size_t N>
mpz_class to_mpz(const bigint<N>& a) {
  mpz_class r;
  mpz_import(r.get_mpz_t(), N, -1, sizeof(uint64_t), 0, 0, a.limb);
  return r;
}

template <std::size_t N>
bigint<N> from_mpz(const mpz_class& v) {
  bigint<N> r;
  size_t count = 0;
  mpz_export(r.limb, &count, -1, sizeof(uint64_t), 0, 0, v.get_mpz_t());
  return r;
}

template <class F>
mpz_class canon(const F& x) {
  return to_mpz(x.to_canonical());
}

template <class F>
mpz_class modulus_mpz() {
  return to_mpz(F::modulus);
}

}  // namespace cuzk::ff::testing
