// SPDX-License-Identifier: MIT OR Apache-2.0
// Synthesis on the device: a = A w, b = B w and c = a∘b computed by the GPU from constraint
// matrices kept resident beside the key's points.
//
// Why: on the CPU this step is a sparse matrix-vector product whose witness reads land at random
// addresses; at 2^24 constraints it took 0.9 s on 16 cores (docs/BENCHMARKS.md), longer than
// every MSM of the proof, and its 3n-element result then had to cross PCIe. On the device the
// same product is a few milliseconds of random reads at HBM bandwidth, the only upload is the
// witness (which the MSMs need anyway), and a, b, c land where the NTTs read them.
//
// The arithmetic is the CPU's (synth/evaluate_abc_impl.hpp) operation for operation: the stored
// coefficient c R times the witness integer read as Montgomery limbs is the Montgomery form of
// c w, rows are summed in the same field, and zero witness values are skipped. Field elements have
// one representation, so a, b and c equal the CPU's bit for bit.
//
// One thread per row: rows of circom circuits hold a few entries (a long linear combination is a
// few thousand at most, microseconds of one thread), and the rows of a warp read neighbouring
// row offsets. Rows between the matrices' row count and the domain size are zero.
//
// Thread: any; the caller makes the key's device current before create() and evaluate().
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "base/result.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "gpu/counting_arena.hpp"
#include "gpu/device_buffer.hpp"
#include "synth/constraint_matrices.hpp"

namespace cuzk::gpu {

template <class Fr>
class device_constraint_matrices {
 public:
  // Uploads m.a and m.b (CSR: row offsets, columns, values) to the current device, in buffers
  // from `arena` where one is given (bytes() of them, the host matrices' bytes() too).
  // Errors: CUDA failures (out of memory).
  static result<device_constraint_matrices> create(const synth::constraint_matrices<Fr>& m,
                                                   counting_arena* arena = nullptr);

  // a, b, c (device, n >= the matrices' row count each) from the device witness w (nVars
  // canonical integers), queued on `stream`.
  status evaluate(const typename Fr::repr* w, Fr* a, Fr* b, Fr* c, std::size_t n, cudaStream_t stream) const;

  std::size_t n_vars() const noexcept { return n_vars_; }
  std::size_t rows() const noexcept { return a_.rows > b_.rows ? a_.rows : b_.rows; }
  std::size_t bytes() const noexcept { return a_.bytes() + b_.bytes(); }

 private:
  struct matrix {
    std::size_t rows = 0;
    device_buffer<uint64_t> row_start;
    device_buffer<uint32_t> col;
    device_buffer<Fr> value;
    std::size_t bytes() const noexcept { return row_start.bytes() + col.bytes() + value.bytes(); }
  };
  static result<matrix> upload(const synth::csr_matrix<Fr>& m, counting_arena* arena);

  matrix a_, b_;
  std::size_t n_vars_ = 0;
};

extern template class device_constraint_matrices<bn254::fr>;
extern template class device_constraint_matrices<bls12_381::fr>;

}  // namespace cuzk::gpu
