// SPDX-License-Identifier: MIT OR Apache-2.0
// The number-theoretic transform over a curve's scalar field, on the CPU, in place and
// multithreaded: forward a_j <- sum_i a_i omega^(ij), inverse a_j <- (1/n) sum_i a_i omega^(-ij),
// over an ntt_domain. This is the CPU backend's NTT and the reference the GPU NTT is tested
// against.
//
// Input and output orders are chosen at the call: the natural-to-bit-reversed (DIF) and
// bit-reversed-to-natural (DIT) forms need no permutation pass, so a caller that pairs them (e.g.
// forward natural->bit-reversed, pointwise work, inverse bit-reversed->natural) never permutes.
// natural->natural costs one extra bit-reversal pass (which also applies the inverse's 1/n).
//
// Thread safety: any thread; work is spread over the given pool.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "base/result.hpp"
#include "base/thread_pool.hpp"
#include "poly/ntt_domain.hpp"
#include "poly/ntt_kernels.hpp"

namespace cuzk::poly {

enum class ntt_direction { forward, inverse };
enum class ntt_order { natural, bit_reversed };

template <class Curve>
[[nodiscard]] status ntt(const ntt_domain<Curve>& domain, std::span<typename Curve::fr> a,
                         ntt_direction direction, ntt_order in = ntt_order::natural,
                         ntt_order out = ntt_order::natural, thread_pool& pool = thread_pool::global());

// a[i] <-> a[bit-reverse(i)] over log2(a.size()) bits; a.size() must be a power of two.
template <class F>
void bit_reverse_permute(std::span<F> a, thread_pool& pool = thread_pool::global());

namespace detail {

template <class Curve>
twiddle_tables<typename Curve::fr> tables_of(const ntt_domain<Curve>& d) {
  return {d.log_size(), d.twiddles().data(), d.block_twiddles().data(), d.block_twiddles().size(),
          d.block_log()};
}

template <class Curve>
status check_size(const ntt_domain<Curve>& d, std::size_t size, const char* what) {
  if (size == d.size()) return status::ok();
  return status(errc::invalid_argument, std::string(what) + ": vector length for " + Curve::name +
                                            ": expected the domain size " + std::to_string(d.size()) +
                                            ", found " + std::to_string(size));
}

template <bool Inverse, class Curve>
void ntt_run(const ntt_domain<Curve>& d, typename Curve::fr* a, ntt_order in, ntt_order out,
             thread_pool& pool) {
  const auto t = tables_of(d);
  const auto* scale = Inverse ? &d.size_inv() : nullptr;
  const std::size_t log_n = d.log_size();
  if (in == ntt_order::natural && out == ntt_order::bit_reversed) {
    transform<true, Inverse>(a, t, scale, pool);
  } else if (in == ntt_order::bit_reversed && out == ntt_order::natural) {
    transform<false, Inverse>(a, t, scale, pool);
  } else if (in == ntt_order::natural) {
    transform<true, Inverse>(a, t, nullptr, pool);
    bit_reverse(a, log_n, scale, pool);
  } else {
    bit_reverse(a, log_n, static_cast<decltype(scale)>(nullptr), pool);
    transform<true, Inverse>(a, t, scale, pool);
  }
}

}  // namespace detail

template <class Curve>
status ntt(const ntt_domain<Curve>& domain, std::span<typename Curve::fr> a, ntt_direction direction,
           ntt_order in, ntt_order out, thread_pool& pool) {
  CUZK_TRY(detail::check_size(domain, a.size(), "ntt"));
  if (direction == ntt_direction::forward) {
    detail::ntt_run<false>(domain, a.data(), in, out, pool);
  } else {
    detail::ntt_run<true>(domain, a.data(), in, out, pool);
  }
  return status::ok();
}

template <class F>
void bit_reverse_permute(std::span<F> a, thread_pool& pool) {
  if (a.size() <= 1) return;
  detail::bit_reverse(a.data(), static_cast<std::size_t>(std::countr_zero(a.size())),
                      static_cast<const F*>(nullptr), pool);
}

extern template status ntt<bn254>(const ntt_domain<bn254>&, std::span<bn254::fr>, ntt_direction, ntt_order,
                                  ntt_order, thread_pool&);
extern template status ntt<bls12_381>(const ntt_domain<bls12_381>&, std::span<bls12_381::fr>, ntt_direction,
                                      ntt_order, ntt_order, thread_pool&);
extern template void bit_reverse_permute<bn254::fr>(std::span<bn254::fr>, thread_pool&);
extern template void bit_reverse_permute<bls12_381::fr>(std::span<bls12_381::fr>, thread_pool&);

}  // namespace cuzk::poly
