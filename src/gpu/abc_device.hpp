// SPDX-License-Identifier: MIT OR Apache-2.0
// Synthesis on the device: a = A w, b = B w and c = a∘b computed by the GPU from constraint
// matrices kept resident beside the key's points, in a compact form (device_matrix_layout).
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

// The device form of a matrix (the counts its upload allocates, to the byte; also what a key's
// estimate counts before it exists): row offsets of 4 bytes where both matrices' entries number
// fewer than 2^32 (8 otherwise), a 4-byte column per entry, and the entry's value as a 2-byte
// index into the matrix's dictionary where it has one that takes fewer bytes that way
// (synth/value_dictionary.hpp), else the 32-byte value.
struct device_matrix_layout {
  bool wide_offsets = false;
  std::size_t rows = 0, nnz = 0, dictionary_values = 0;
  bool indexed = false;
  std::size_t offset_bytes() const noexcept { return wide_offsets ? 8 : 4; }
  template <class Fr>
  std::size_t bytes() const noexcept {
    return (rows + 1) * offset_bytes() + nnz * sizeof(uint32_t) +
           (indexed ? nnz * sizeof(uint16_t) + dictionary_values * sizeof(Fr) : nnz * sizeof(Fr));
  }
};

template <class Fr>
class device_constraint_matrices {
 public:
  // Which row offsets create() keeps: 4 bytes where the entries allow (automatic), or 8 whatever
  // their count (wide: the tests check that form on matrices too small to need it).
  enum class offsets { automatic, wide };

  // Uploads m.a and m.b (device_matrix_layout) to the current device, in buffers from `arena`
  // where one is given (device_bytes(m) of them with automatic offsets). Errors: CUDA failures
  // (out of memory), a value missing from its matrix's dictionary (a matrix changed after its
  // build), row offsets not rows + 1.
  static result<device_constraint_matrices> create(const synth::constraint_matrices<Fr>& m,
                                                   counting_arena* arena = nullptr,
                                                   offsets kept = offsets::automatic);

  // The bytes create() allocates for m, without allocating.
  static std::size_t device_bytes(const synth::constraint_matrices<Fr>& m) noexcept {
    return layout(m.a, wide(m)).template bytes<Fr>() + layout(m.b, wide(m)).template bytes<Fr>();
  }

  // a, b, c (device, n >= the matrices' row count each) from the device witness w (nVars
  // canonical integers), queued on `stream`. Either c or a and b may be null: a and b alone, then c
  // alone once a and b have been transformed, for a proof that holds two of them at a time (c is
  // computed from the rows again, the same values).
  status evaluate(const typename Fr::repr* w, Fr* a, Fr* b, Fr* c, std::size_t n, cudaStream_t stream) const;

  std::size_t n_vars() const noexcept { return n_vars_; }
  std::size_t rows() const noexcept { return a_.rows > b_.rows ? a_.rows : b_.rows; }
  std::size_t bytes() const noexcept { return a_.bytes() + b_.bytes(); }
  // Whether the matrices keep 8-byte row offsets (more than 2^32 entries in one of them), and
  // whether each keeps indexes into its dictionary rather than values.
  bool wide_offsets() const noexcept { return wide_; }
  bool a_indexed() const noexcept { return a_.indexed; }
  bool b_indexed() const noexcept { return b_.indexed; }

 private:
  struct matrix {
    std::size_t rows = 0;
    bool indexed = false;
    device_buffer<uint64_t> row_start_wide;  // with wide offsets
    device_buffer<uint32_t> row_start;       // otherwise
    device_buffer<uint32_t> col;
    device_buffer<Fr> value;       // the entries' values, or the dictionary's
    device_buffer<uint16_t> index;  // with a dictionary: each entry's index into `value`
    std::size_t bytes() const noexcept {
      return row_start_wide.bytes() + row_start.bytes() + col.bytes() + value.bytes() + index.bytes();
    }
  };
  static bool wide(const synth::constraint_matrices<Fr>& m) noexcept {
    return m.a.nnz() > UINT32_MAX || m.b.nnz() > UINT32_MAX;
  }
  static device_matrix_layout layout(const synth::csr_matrix<Fr>& m, bool wide_offsets) noexcept {
    // A table larger than a 2-byte index reaches (set by hand: a build never makes one) keeps values.
    const std::size_t table = m.dictionary ? m.dictionary->size() : 0;
    const bool smaller = m.dictionary && table <= synth::max_dictionary_values &&
                         table * sizeof(Fr) + m.nnz() * sizeof(uint16_t) < m.nnz() * sizeof(Fr);
    return {wide_offsets, m.rows, m.nnz(), smaller ? table : 0, smaller};
  }
  static result<matrix> upload(const synth::csr_matrix<Fr>& m, const device_matrix_layout& form,
                               counting_arena* arena);

  matrix a_, b_;
  bool wide_ = false;
  std::size_t n_vars_ = 0;
};

extern template class device_constraint_matrices<bn254::fr>;
extern template class device_constraint_matrices<bls12_381::fr>;

}  // namespace cuzk::gpu
