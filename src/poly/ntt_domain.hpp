// SPDX-License-Identifier: MIT OR Apache-2.0
// A radix-2 evaluation domain {omega^j : j < n}, n = 2^k, in a curve's scalar field Fr, with the
// tables every NTT over it reads.
//
// omega is root_of_unity<Fr>(k, Curve::fr_generator) = 5^((r-1)/2^k), exactly ffjavascript's
// Fr.w[k]: snarkjs's proving keys hold Lagrange bases over these points, so any other primitive
// root gives wrong proofs (snarkjs, src/groth16_prove.js; ffjavascript's Fr.w).
//
// Twiddles: ONE table of n/2 entries, omega^j for j < n/2 (16n bytes: 256 MiB at 2^24, 4 GiB at
// 2^28 on a 32-byte Fr). The inverse transform reads the same table mirrored, because
// omega^-j = omega^(n-j) = -omega^(n/2-j) for 0 < j < n/2; the minus sign costs nothing, it only
// swaps which butterfly output takes the sum and which the difference (ntt_kernels.hpp). A second
// table for omega^-j would double the memory for no speed, and the classic alternative (forward
// transform, then reverse outputs 1..n-1) costs a full extra pass over the data.
//
// Besides it, a packed copy of the twiddles the in-cache stages use (omega_B^j, j < B/2, for the
// block size B of ntt_kernels.hpp): those stages read twiddles at stride n/B in the big table,
// one cache line per twiddle, and the packed copy keeps them in B/2 contiguous entries.
//
// Built once per size and shared read-only; a proving daemon keeps one per circuit size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "base/thread_pool.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "ff/roots_of_unity.hpp"
#include "poly/ntt_kernels.hpp"

namespace cuzk::poly {

template <class Curve>
class ntt_domain {
 public:
  using fr = typename Curve::fr;

  // The domain of size 2^log_n; fails when log_n > Fr::two_adicity (no such root exists).
  static result<ntt_domain> create(std::size_t log_n, thread_pool& pool = thread_pool::global());

  std::size_t log_size() const noexcept { return log_n_; }
  std::size_t size() const noexcept { return std::size_t{1} << log_n_; }
  const fr& omega() const noexcept { return omega_; }
  const fr& omega_inv() const noexcept { return omega_inv_; }
  const fr& size_inv() const noexcept { return size_inv_; }  // 1/n

  // omega^j for j < n/2 (empty when n = 1).
  std::span<const fr> twiddles() const noexcept { return twiddles_; }
  // omega_B^j = omega^(j*n/B) for j < B/2, B = 2^block_log().
  std::span<const fr> block_twiddles() const noexcept { return block_twiddles_; }
  std::size_t block_log() const noexcept { return block_log_; }

 private:
  ntt_domain() = default;

  std::size_t log_n_ = 0, block_log_ = 0;
  fr omega_, omega_inv_, size_inv_;
  std::vector<fr> twiddles_, block_twiddles_;
};

template <class Curve>
result<ntt_domain<Curve>> ntt_domain<Curve>::create(std::size_t log_n, thread_pool& pool) {
  if (log_n > fr::two_adicity) {
    return status(errc::invalid_argument, std::string("ntt_domain: log2(size) for ") + Curve::name +
                                              ": expected at most " + std::to_string(fr::two_adicity) +
                                              ", found " + std::to_string(log_n));
  }
  ntt_domain d;
  d.log_n_ = log_n;
  d.block_log_ = log_n < detail::ntt_block_log ? log_n : detail::ntt_block_log;
  d.omega_ = ff::root_of_unity<fr>(log_n, Curve::fr_generator);
  d.omega_inv_ = d.omega_.inverse();
  d.size_inv_ = fr::from_uint(2).pow(static_cast<uint64_t>(log_n)).inverse();

  const std::size_t half = d.size() / 2;
  d.twiddles_.resize(half);
  // Each chunk starts from omega^begin by exponentiation, then multiplies along: n/2 products in
  // all, spread over the pool, instead of a serial chain.
  pool.parallel_for(
      half,
      [&](std::size_t begin, std::size_t end) {
        fr w = d.omega_.pow(static_cast<uint64_t>(begin));
        for (std::size_t j = begin; j < end; ++j) {
          d.twiddles_[j] = w;
          w *= d.omega_;
        }
      },
      1 << 12);

  const std::size_t block_half = (std::size_t{1} << d.block_log_) / 2;
  const std::size_t stride = d.size() >> d.block_log_;
  d.block_twiddles_.resize(block_half);
  for (std::size_t j = 0; j < block_half; ++j) d.block_twiddles_[j] = d.twiddles_[j * stride];
  return d;
}

extern template class ntt_domain<bn254>;
extern template class ntt_domain<bls12_381>;

}  // namespace cuzk::poly
