// Kernels and host code behind ntt.hpp, as templates over the CPU field type; included only by
// ntt_<curve>.cu, which hold the explicit instantiations.
//
// Structure. A radix-2 transform of n = 2^L points has L stages; stage s (numbered in
// decimation-in-frequency order) pairs elements i and i + n/2^(s+1) with twiddle
// omega_n^(j 2^s), j = i mod n/2^(s+1). A pass runs k consecutive stages s0..s0+k-1 in shared
// memory: each block loads 2^k rows at stride n/2^(s0+k) (the rows one butterfly group of those
// stages touches) times C = 2^(10-k) neighbouring columns, so every block holds 2^10 elements
// (32 KiB of Fr) and its global reads and writes come in runs of C elements. The last pass
// (stride 1) is 10 stages over 1024 contiguous elements; the other L - 10 stages are split as
// evenly as possible into passes of at most 10, so 2^24 is 7 + 7 + 10 stages in three passes.
// Decimation in time runs the same passes and stages in the reverse order with the butterfly
// (a, b) -> (a + w b, a - w b), which undoes the frequency butterfly stage by stage; that is why
// one kernel serves all four direction/order combinations.
//
// Every butterfly multiplies once (n/2 log n products per transform, the minimum for radix 2);
// its twiddle is one 32-byte read of the plan's table, issued before the barrier that precedes
// the butterfly so that its latency hides behind the barrier wait. Shared memory holds the
// elements word-sliced (word w of element e at [w][e]): a warp reading 32 neighbouring elements
// touches 32 consecutive words, one per bank.
//
// The cost is multiplication-bound: 2^23 * 24 = 2.0e8 products at 2^24, which at the measured
// 5.1e10 (BLS12-381 Fr) to 5.8e10 (BN254 Fr) products/s (NOTES.md) is 3.5 to 4.0 ms, against
// about 0.75 ms for the three passes' 3 GiB of traffic at ~4 TB/s.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "ff/roots_of_unity.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/fp_device.cuh"
#include "gpu/ntt.hpp"

namespace cuzk::gpu {

namespace ntt_detail {

// The curve's fixed generator of Fr^* (the curve header's fr_generator), from the field type.
template <class Fr>
constexpr uint64_t fr_generator() {
  if constexpr (std::is_same_v<Fr, bn254::fr>) return bn254::fr_generator;
  else return bls12_381::fr_generator;
}

// 2^10 elements per block (32 KiB of 32-byte elements; four blocks fit an SM's shared memory).
constexpr unsigned log_block = 10;

enum class scale_mode : uint8_t { none, table, n_inv, n_inv_table };

template <class D>
struct pass_args {
  unsigned log_n;
  unsigned s0;     // first stage (frequency-order numbering)
  unsigned k;      // stages in this pass
  unsigned log_c;  // columns per block
  scale_mode pre;  // applied to each element as it is loaded (forward coset)
  scale_mode post; // applied as it is stored (inverse: 1/n and the coset)
  bool pre_bitrev, post_bitrev;  // the scale table is indexed by the bit-reversed position
  const D* pre_table;
  const D* post_table;
  D n_inv;
};

template <class D>
__device__ __forceinline__ D load_vec(const D* p) {
  static_assert(sizeof(D) % 16 == 0);
  D r;
  const uint4* s = reinterpret_cast<const uint4*>(p);
  uint4* d = reinterpret_cast<uint4*>(&r);
#pragma unroll
  for (unsigned v = 0; v < sizeof(D) / 16; ++v) d[v] = __ldg(s + v);
  return r;
}

template <class D>
__device__ __forceinline__ void store_vec(D* p, const D& x) {
  const uint4* s = reinterpret_cast<const uint4*>(&x);
  uint4* d = reinterpret_cast<uint4*>(p);
#pragma unroll
  for (unsigned v = 0; v < sizeof(D) / 16; ++v) d[v] = s[v];
}

__device__ __forceinline__ std::size_t bitrev(std::size_t i, unsigned log_n) {
  return static_cast<std::size_t>(__brevll(static_cast<unsigned long long>(i)) >> (64 - log_n));
}

template <class D>
__device__ __forceinline__ D apply_scale(const D& x, scale_mode mode, const D* table, bool by_bitrev, std::size_t g,
                                         unsigned log_n, const D& n_inv) {
  if (mode == scale_mode::none) return x;
  if (mode == scale_mode::n_inv) return x * n_inv;
  const D t = load_vec(table + (by_bitrev ? bitrev(g, log_n) : g));
  return mode == scale_mode::table ? x * t : (x * n_inv) * t;
}

// One pass of k stages; blockDim.x = 2^(k + log_c - 1) (one butterfly per thread per stage).
template <class D, bool Dit>
__global__ void __launch_bounds__(512, 2) pass_kernel(D* __restrict__ data, const D* __restrict__ tw, pass_args<D> a) {
  constexpr unsigned W = D::n;
  extern __shared__ uint32_t smem[];
  const unsigned log_e = a.k + a.log_c;
  const unsigned E = 1u << log_e;
  const unsigned C = 1u << a.log_c;
  const std::size_t stride = std::size_t{1} << (a.log_n - a.s0 - a.k);
  const std::size_t chunks = stride >> a.log_c;
  const std::size_t hi = blockIdx.x / chunks;
  const std::size_t lo = (blockIdx.x % chunks) << a.log_c;
  const std::size_t base = (hi << (a.log_n - a.s0)) + lo;

  for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
    const std::size_t g = base + (e >> a.log_c) * stride + (e & (C - 1));
    D x = load_vec(data + g);
    x = apply_scale(x, a.pre, a.pre_table, a.pre_bitrev, g, a.log_n, a.n_inv);
#pragma unroll
    for (unsigned w = 0; w < W; ++w) smem[w * E + e] = x.limb[w];
  }

  if (E >= 2) {
    const unsigned q = threadIdx.x;
    const unsigned c = q & (C - 1);
    const unsigned p = q >> a.log_c;
    for (unsigned tt = 0; tt < a.k; ++tt) {
      const unsigned t = Dit ? a.k - 1 - tt : tt;
      const unsigned s = a.s0 + t;
      const unsigned log_h = a.k - 1 - t;
      const unsigned jj = p & ((1u << log_h) - 1);
      const unsigned r0 = ((p >> log_h) << (log_h + 1)) + jj;
      const unsigned e0 = (r0 << a.log_c) + c;
      const unsigned e1 = e0 + (1u << (log_h + a.log_c));
      const std::size_t j = jj * stride + lo + c;  // < n / 2^(s+1)
      const D w = load_vec(tw + (j << (s + 1)));  // omega_n^(j 2^s) = g^(2 j 2^s)
      __syncthreads();
      D x0, x1;
#pragma unroll
      for (unsigned v = 0; v < W; ++v) {
        x0.limb[v] = smem[v * E + e0];
        x1.limb[v] = smem[v * E + e1];
      }
      D y0, y1;
      if constexpr (Dit) {
        const D t1 = x1 * w;
        y0 = x0 + t1;
        y1 = x0 - t1;
      } else {
        y0 = x0 + x1;
        y1 = (x0 - x1) * w;
      }
#pragma unroll
      for (unsigned v = 0; v < W; ++v) {
        smem[v * E + e0] = y0.limb[v];
        smem[v * E + e1] = y1.limb[v];
      }
    }
  }
  __syncthreads();

  for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
    const std::size_t g = base + (e >> a.log_c) * stride + (e & (C - 1));
    D x;
#pragma unroll
    for (unsigned w = 0; w < W; ++w) x.limb[w] = smem[w * E + e];
    x = apply_scale(x, a.post, a.post_table, a.post_bitrev, g, a.log_n, a.n_inv);
    store_vec(data + g, x);
  }
}

// In-place bit-reversal permutation: each pair (i, rev i) is swapped by the thread of the smaller.
template <class D>
__global__ void bitrev_kernel(D* __restrict__ data, unsigned log_n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >> log_n) return;
  const std::size_t j = bitrev(i, log_n);
  if (i < j) {
    const D a = load_vec(data + i);
    const D b = load_vec(data + j);
    store_vec(data + i, b);
    store_vec(data + j, a);
  }
}

// table[i] = lo[i mod B] * hi[i / B]: the powers g^i from two short host-made tables.
template <class D>
__global__ void powers_kernel(D* __restrict__ table, const D* __restrict__ lo, const D* __restrict__ hi,
                              unsigned log_b, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  table[i] = lo[i & ((std::size_t{1} << log_b) - 1)] * hi[i >> log_b];
}

// The passes (s0, k) of a transform of 2^log_n points, in frequency order.
inline std::vector<std::pair<unsigned, unsigned>> plan_passes(unsigned log_n) {
  std::vector<std::pair<unsigned, unsigned>> passes;
  if (log_n <= log_block) {
    passes.emplace_back(0, log_n);
    return passes;
  }
  const unsigned rest = log_n - log_block;
  const unsigned np = (rest + log_block - 1) / log_block;
  unsigned s0 = 0;
  for (unsigned i = 0; i < np; ++i) {
    const unsigned k = rest / np + (i < rest % np ? 1 : 0);
    passes.emplace_back(s0, k);
    s0 += k;
  }
  passes.emplace_back(s0, log_block);
  return passes;
}

// g^i for i < n into `out` (device), from host tables of g^j (j < B) and g^(B m).
template <class Fr>
status fill_powers(device_buffer<Fr>& out, const Fr& g, unsigned log_n, cudaStream_t stream) {
  using D = fp_device<typename Fr::params>;
  const std::size_t n = std::size_t{1} << log_n;
  const unsigned log_b = std::min(log_n, 10u);
  const std::size_t b = std::size_t{1} << log_b;
  std::vector<Fr> lo(b), hi(n >> log_b);
  Fr x = Fr::one();
  for (std::size_t j = 0; j < b; ++j, x *= g) lo[j] = x;
  // x is now g^B.
  Fr y = Fr::one();
  for (std::size_t m = 0; m < hi.size(); ++m, y *= x) hi[m] = y;
  auto dlo = device_buffer<Fr>::create(lo.size());
  if (!dlo) return dlo.error();
  auto dhi = device_buffer<Fr>::create(hi.size());
  if (!dhi) return dhi.error();
  CUZK_TRY(dlo->copy_from_host(lo.data(), lo.size()));
  CUZK_TRY(dhi->copy_from_host(hi.data(), hi.size()));
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
  powers_kernel<D><<<blocks, threads, 0, stream>>>(reinterpret_cast<D*>(out.data()),
                                                   reinterpret_cast<const D*>(dlo->data()),
                                                   reinterpret_cast<const D*>(dhi->data()), log_b, n);
  CUZK_CUDA_TRY(cudaGetLastError());
  // The small tables die with this scope: wait for the kernel that reads them.
  CUZK_CUDA_TRY(cudaStreamSynchronize(stream));
  return status::ok();
}

}  // namespace ntt_detail

template <class Fr>
result<ntt_plan<Fr>> ntt_plan<Fr>::create(unsigned log_n, cudaStream_t stream) {
  if (log_n > Fr::two_adicity)
    return status(errc::invalid_argument, "gpu::ntt_plan: domain 2^" + std::to_string(log_n) +
                                              " exceeds the field's two-adicity " +
                                              std::to_string(Fr::two_adicity));
  ntt_plan p;
  p.log_n_ = log_n;
  // snarkjs's coset shift: omega_2n, or its Fr.shift = g^2 where no 2n-th root exists.
  constexpr uint64_t gen = ntt_detail::fr_generator<Fr>();
  p.shift_ = log_n < Fr::two_adicity ? ff::root_of_unity<Fr>(log_n + 1, gen) : Fr::from_uint(gen).sqr();
  Fr n_fr = Fr::one();
  for (unsigned i = 0; i < log_n; ++i) n_fr = n_fr.dbl();
  p.n_inv_ = n_fr.inverse();
  const std::size_t n = p.size();
  auto fwd = device_buffer<Fr>::create(n);
  if (!fwd) return fwd.error();
  auto inv = device_buffer<Fr>::create(n);
  if (!inv) return inv.error();
  p.pow_fwd_ = std::move(*fwd);
  p.pow_inv_ = std::move(*inv);
  CUZK_TRY(ntt_detail::fill_powers(p.pow_fwd_, p.shift_, log_n, stream));
  CUZK_TRY(ntt_detail::fill_powers(p.pow_inv_, p.shift_.inverse(), log_n, stream));
  return result<ntt_plan>(std::move(p));
}

template <class Fr>
status ntt_plan<Fr>::run(Fr* data, ntt_direction dir, ntt_order order, ntt_domain domain,
                         cudaStream_t stream) const {
  using D = fp_device<typename Fr::params>;
  using namespace ntt_detail;
  static_assert(sizeof(D) == sizeof(Fr));
  if (data == nullptr) return status(errc::invalid_argument, "gpu::ntt_plan::run: null data");
  const unsigned L = log_n_;
  if (L == 0) return status::ok();  // one point: every variant is the identity (g^0 = 1/1 = 1)

  const bool dit = order == ntt_order::bitrev_to_natural;
  const bool forward = dir == ntt_direction::forward;
  const bool coset = domain == ntt_domain::coset;
  D* d = reinterpret_cast<D*>(data);
  const D* tw = reinterpret_cast<const D*>(forward ? pow_fwd_.data() : pow_inv_.data());

  auto passes = plan_passes(L);
  if (dit) std::reverse(passes.begin(), passes.end());
  for (std::size_t i = 0; i < passes.size(); ++i) {
    pass_args<D> a{};
    a.log_n = L;
    a.s0 = passes[i].first;
    a.k = passes[i].second;
    a.log_c = L <= log_block ? 0 : log_block - a.k;
    a.n_inv = D::from_host(n_inv_);
    a.pre = scale_mode::none;
    a.post = scale_mode::none;
    if (i == 0 && forward && coset) {
      a.pre = scale_mode::table;
      a.pre_table = reinterpret_cast<const D*>(pow_fwd_.data());
      a.pre_bitrev = dit;  // bit-reversed input: position p holds coefficient rev(p)
    }
    if (i + 1 == passes.size() && !forward) {
      a.post = coset ? scale_mode::n_inv_table : scale_mode::n_inv;
      a.post_table = reinterpret_cast<const D*>(pow_inv_.data());
      a.post_bitrev = !dit;  // frequency order writes bit-reversed positions
    }
    const unsigned log_e = a.k + a.log_c;
    const unsigned threads = log_e == 0 ? 1u : 1u << (log_e - 1);
    const auto blocks = static_cast<unsigned>(std::size_t{1} << (L - log_e));
    const std::size_t smem = (std::size_t{1} << log_e) * sizeof(D);
    if (dit)
      pass_kernel<D, true><<<blocks, threads, smem, stream>>>(d, tw, a);
    else
      pass_kernel<D, false><<<blocks, threads, smem, stream>>>(d, tw, a);
    CUZK_CUDA_TRY(cudaGetLastError());
  }
  if (order == ntt_order::natural_to_natural) {
    const unsigned threads = 256;
    const auto blocks = static_cast<unsigned>(((std::size_t{1} << L) + threads - 1) / threads);
    bitrev_kernel<D><<<blocks, threads, 0, stream>>>(d, L);
    CUZK_CUDA_TRY(cudaGetLastError());
  }
  return status::ok();
}

}  // namespace cuzk::gpu
