// SPDX-License-Identifier: MIT OR Apache-2.0
// Random field elements from the operating system's CSPRNG (getrandom(2)), for the prover's
// blinding factors r, s and the development setup's toxic waste.
//
// A seeded generator would make proofs reproducible and would leak the witness to anyone who
// learns the seed (r and s are what hide it), so nothing secret comes from std::mt19937. getrandom
// blocks only until the kernel's pool is first initialised at boot, and never fails for requests
// this small except on EINTR, which is retried.
#pragma once

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

namespace cuzk::groth16 {

// A UniformRandomBitGenerator over getrandom, for Fr::random.
struct os_rng {
  using result_type = uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() {
    result_type v = 0;
    auto* p = reinterpret_cast<unsigned char*>(&v);
    std::size_t got = 0;
    while (got < sizeof v) {
      const ssize_t n = getrandom(p + got, sizeof v - got, 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        std::abort();  // no kernel entropy source: continuing would produce predictable secrets
      }
      got += static_cast<std::size_t>(n);
    }
    return v;
  }
};

// Uniform in [0, r).
template <class Fr>
Fr os_random_scalar() {
  os_rng rng;
  return Fr::random(rng);
}

// Uniform in [1, r).
template <class Fr>
Fr os_random_nonzero_scalar() {
  for (;;) {
    const Fr x = os_random_scalar<Fr>();
    if (!x.is_zero()) return x;
  }
}

}  // namespace cuzk::groth16
