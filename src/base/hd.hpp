// SPDX-License-Identifier: MIT OR Apache-2.0
// Execution-space annotations shared by host and device code.
//
// Headers that hold formulas written once for both the CPU and the GPU (point arithmetic, the
// Groth16 kernels' building blocks) mark their functions CUZK_HD. Under nvcc this is
// __host__ __device__; under a plain C++ compiler it is empty, so the same header builds in a
// tree without CUDA.
#pragma once

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__
#define CUZK_HD_INLINE __host__ __device__ __forceinline__
#else
#define CUZK_HD
#define CUZK_HD_INLINE inline __attribute__((always_inline))
#endif
