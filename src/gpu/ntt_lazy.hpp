// SPDX-License-Identifier: MIT OR Apache-2.0
// Host entry to the NTT's lazy butterfly arithmetic (ntt_lazy.cuh), for tests.
//
// The NTT keeps values in [0, 2p) between stages with its own sum, difference and product (the
// product is Shoup's, by a twiddle's stored pair; ntt_shoup.cuh); this runs them element-wise over host
// arrays, returning the raw words, so that tests can check each result's range and value against
// the CPU field on random and edge values. Not a fast path: copy in, one kernel, copy out.
//
// Thread: any thread; each call makes `device` current on the calling thread and synchronises.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/result.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"

namespace cuzk::gpu {

// mul(w, x): w < p (Montgomery form, made into its Shoup pair as the plan makes its twiddles), x
// below 2p (every value a butterfly multiplies; the product accepts more, ntt_shoup.cuh); result
// < 2p. add, sub: x, y < 2p, result < 2p. canonical: x < 2p, result < p.
enum class ntt_lazy_op : uint8_t { mul, add, sub, canonical };

// out[i] = op(a[i], b[i]) for i < n, raw Montgomery words (host arrays; out may alias a or b).
template <class Fr>
status ntt_lazy_batch(int device, ntt_lazy_op op, const Fr* a, const Fr* b, Fr* out, std::size_t n);

extern template status ntt_lazy_batch<bn254::fr>(int, ntt_lazy_op, const bn254::fr*, const bn254::fr*,
                                                 bn254::fr*, std::size_t);
extern template status ntt_lazy_batch<bls12_381::fr>(int, ntt_lazy_op, const bls12_381::fr*,
                                                     const bls12_381::fr*, bls12_381::fr*, std::size_t);

}  // namespace cuzk::gpu
