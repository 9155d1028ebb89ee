// SPDX-License-Identifier: MIT OR Apache-2.0
// CUDA errors as cuzk status values.
//
// Every CUDA runtime call in cuzk goes through CUZK_CUDA_TRY, which turns a failure into a
// `status` of errc::cuda_error naming the expression, file:line and the runtime's own message
// ("cudaMalloc(&ptr, bytes) at src/gpu/device_buffer.hpp:40: cudaErrorMemoryAllocation: out of
// memory"). Nothing throws across the CUDA boundary: host functions that launch work return a
// status, and callers propagate it with CUZK_TRY.
//
// Any thread may use these; they touch no state beyond what the CUDA runtime keeps per thread.
#pragma once

#include <cuda_runtime_api.h>

#include "base/result.hpp"

namespace cuzk::gpu {

// The status for a failed CUDA call; `expr` is the call's source text.
status cuda_status(cudaError_t err, const char* expr, const char* file, int line);

}  // namespace cuzk::gpu

// Evaluates a CUDA runtime call; on failure returns its status from the enclosing function
// (which returns `status` or `result<T>`).
#define CUZK_CUDA_TRY(expr)                                                            \
  do {                                                                                 \
    const cudaError_t cuzk_cuda_err_ = (expr);                                         \
    if (cuzk_cuda_err_ != cudaSuccess)                                                 \
      return ::cuzk::gpu::cuda_status(cuzk_cuda_err_, #expr, __FILE__, __LINE__);      \
  } while (0)
