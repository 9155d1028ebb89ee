// SPDX-License-Identifier: MIT OR Apache-2.0
// Element-wise field operations over arrays on the GPU, called from host code.
//
// This is the thinnest host entry into the device field (fp_device.cuh): copy the inputs to the
// device, launch one kernel, copy the result back. It exists to check the device arithmetic
// against the CPU field on millions of values and to measure multiplication throughput; the
// provers' kernels use fp_device directly on resident data and never go through here.
//
// The arrays are CPU field elements (ff::fp<P>); they are copied as they are, because fp_device<P>
// has the same layout and Montgomery form. This header needs no CUDA headers, so plain C++ code
// (tests, benchmarks) can call it.
//
// Thread: any thread; each call makes `device` current on the calling thread and synchronises.
#pragma once

#include <cstddef>

#include "base/result.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"

namespace cuzk::gpu {

enum class field_op { mul, add, sub, sqr, neg, dbl, inv };

// out[i] = op(a[i], b[i]) for i < n; `b` is ignored (may be null) for the unary sqr, neg, dbl, inv
// (inv: a^-1, and 0 for 0).
// The arrays are host memory and may alias.
template <class F>
status field_batch(int device, field_op op, const F* a, const F* b, F* out, std::size_t n);

// Throughput of the device multiplication: every one of n threads computes
// x = a[i], then x = x * b[i] `rounds` times, and writes out[i] = a[i] * b[i]^rounds (if `out` is
// not null, so the caller can check that the timed work is the real computation). One warm-up
// launch, then `repeats` timed launches (CUDA events); returns the median rate in
// multiplications per second.
template <class F>
result<double> field_mul_rate(int device, const F* a, const F* b, F* out, std::size_t n, unsigned rounds,
                              unsigned repeats = 5);

#define CUZK_GPU_FIELD_BATCH_EXTERN(F)                                                                  \
  extern template status field_batch<F>(int, field_op, const F*, const F*, F*, std::size_t);           \
  extern template result<double> field_mul_rate<F>(int, const F*, const F*, F*, std::size_t, unsigned, \
                                                   unsigned);
CUZK_GPU_FIELD_BATCH_EXTERN(bn254::fq)
CUZK_GPU_FIELD_BATCH_EXTERN(bn254::fr)
CUZK_GPU_FIELD_BATCH_EXTERN(bls12_381::fq)
CUZK_GPU_FIELD_BATCH_EXTERN(bls12_381::fr)
#undef CUZK_GPU_FIELD_BATCH_EXTERN

}  // namespace cuzk::gpu
