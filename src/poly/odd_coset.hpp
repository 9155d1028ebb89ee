// SPDX-License-Identifier: MIT OR Apache-2.0
// Evaluation on a coset of the NTT domain, and the Groth16 H computation exactly as snarkjs and
// rapidsnark do it (snarkjs's Groth16 prover, rapidsnark's prover).
//
// Given a, b, c as evaluations on the n-domain, each is interpolated (inverse NTT), its
// coefficient i multiplied by shift^i, and evaluated again on the n-domain (forward NTT): slot j
// then holds the polynomial at shift * omega^j. With shift = omega_2n these are the odd points
// omega_2n^(2j+1) of the 2n-domain, where Z(x) = x^n - 1 = -2 is constant, so h_j = a_j b_j - c_j
// with no division: the zkey's H points already fold the constant in.
//
// The shift when no omega_2n exists (n = 2^two_adicity: 2^28 on BN254, 2^32 on BLS12-381):
// snarkjs's groth16_prove.js uses `power == Fr.s ? Fr.shift : Fr.w[power+1]`, and ffjavascript
// sets Fr.shift = nqr^2 with nqr the least quadratic non-residue (5 on both curves), so 25; the
// zkey's H points are then the Lagrange basis of the coset 25 * omega_n^j. odd_coset_shift() makes
// that choice, with the largest size a parameter so the rule is testable on a small analogue.
// (rapidsnark has no such case: it rejects domains past 2^(s-1).)
//
// How the twist is applied: the inverse NTT runs natural->bit-reversed (DIF) and the forward
// bit-reversed->natural (DIT), so neither needs a bit-reversal pass; the coefficients are then
// in bit-reversed order, and the factor (1/n) shift^rev(p) for position p is applied inside the
// forward's first (in-cache) pass, as T1[p mod B] * T2[p / B] from two small tables (B + n/B
// entries). That is two multiplications per element instead of the one a running product in
// natural order needs, but it saves two bit-reversal passes per vector and a pass for the twist
// (bench/ntt_bench.cpp compute_h vs compute_h_nn, BN254 2^20, one thread: 1.72 s vs 2.37 s of CPU).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "base/thread_pool.hpp"
#include "ff/roots_of_unity.hpp"
#include "poly/ntt.hpp"
#include "poly/ntt_domain.hpp"

namespace cuzk::poly {

// The coset shift snarkjs uses for a domain of size 2^log_n: omega_{2^(log_n+1)} while
// log_n < max_log, and generator^2 (ffjavascript's Fr.shift) when log_n == max_log. max_log is
// Fr::two_adicity in real use; tests pass a small value to exercise the largest-size rule.
template <class Fr>
result<Fr> odd_coset_shift(std::size_t log_n, uint64_t generator, std::size_t max_log = Fr::two_adicity) {
  if (log_n > max_log || max_log > Fr::two_adicity) {
    return status(errc::invalid_argument, "odd_coset_shift: log2(size): expected at most " +
                                              std::to_string(max_log) + ", found " + std::to_string(log_n));
  }
  if (log_n == max_log) return Fr::from_uint(generator).sqr();
  return ff::root_of_unity<Fr>(log_n + 1, generator);
}

// a[i] *= first * shift^i, multithreaded (each chunk starts from first * shift^begin by pow).
template <class F>
void distribute_powers(std::span<F> a, const F& shift, const F& first = F::one(),
                       thread_pool& pool = thread_pool::global()) {
  pool.parallel_for(
      a.size(),
      [&](std::size_t begin, std::size_t end) {
        F w = first * shift.pow(static_cast<uint64_t>(begin));
        for (std::size_t i = begin; i < end; ++i) {
          a[i] *= w;
          w *= shift;
        }
      },
      1 << 12);
}

// Evaluations on the domain (natural order) -> evaluations at shift * omega^j (natural order).
template <class Curve>
[[nodiscard]] status evaluate_on_coset(const ntt_domain<Curve>& domain, std::span<typename Curve::fr> a,
                                       const typename Curve::fr& shift,
                                       thread_pool& pool = thread_pool::global());

// The Groth16 H scalars, in Montgomery form like a, b and c: on return a[j] = h_j =
// A(x_j) B(x_j) - C(x_j) at x_j = shift * omega^j, shift = odd_coset_shift(log n). b and c are
// overwritten with B and C on the coset. Converting h out of Montgomery form is the caller's.
template <class Curve>
[[nodiscard]] status compute_h(const ntt_domain<Curve>& domain, std::span<typename Curve::fr> a,
                               std::span<typename Curve::fr> b, std::span<typename Curve::fr> c,
                               thread_pool& pool = thread_pool::global());

namespace detail {

// The factors (1/n) shift^rev(p) for p < n, split as t1[p mod B] * t2[p / B].
template <class F>
struct coset_twist {
  std::size_t block_log;
  std::vector<F> t1, t2;

  coset_twist(std::size_t log_n, std::size_t b, const F& shift, const F& size_inv) : block_log(b) {
    // rev_L(hi * B + lo) = rev_b(lo) * 2^(L-b) + rev_(L-b)(hi).
    t1.resize(std::size_t{1} << b);
    t2.resize(std::size_t{1} << (log_n - b));
    F g = shift;
    for (std::size_t i = b; i < log_n; ++i) g = g.sqr();  // shift^(2^(L-b))
    F w = F::one();
    for (std::size_t i = 0; i < t1.size(); ++i, w *= g) t1[reverse_bits(i, b)] = w;
    w = size_inv;
    for (std::size_t i = 0; i < t2.size(); ++i, w *= shift) t2[reverse_bits(i, log_n - b)] = w;
  }

  void operator()(std::size_t blk, F* p, std::size_t size) const {
    const F c = t2[blk];
    for (std::size_t i = 0; i < size; ++i) p[i] *= t1[i] * c;
  }
};

template <class Curve>
void coset_eval(const ntt_domain<Curve>& d, typename Curve::fr* a,
                const coset_twist<typename Curve::fr>& twist, thread_pool& pool,
                const ntt_schedule& sched = {}) {
  using fr = typename Curve::fr;
  const auto t = tables_of(d);
  transform<true, true>(a, t, static_cast<const fr*>(nullptr), pool, sched);
  transform<false, false>(a, t, static_cast<const fr*>(nullptr), pool, sched,
                          [&twist](std::size_t blk, fr* p, std::size_t size) { twist(blk, p, size); });
}

template <class Curve>
coset_twist<typename Curve::fr> make_twist(const ntt_domain<Curve>& d, const typename Curve::fr& shift,
                                           thread_pool& pool, const ntt_schedule& sched = {}) {
  // The same inner block as the transform's, so that the hook's blocks are the tables' blocks.
  const std::size_t b = inner_block_log(d.log_size(), std::min(d.block_log(), sched.block_log), pool.size());
  return {d.log_size(), b, shift, d.size_inv()};
}

}  // namespace detail

template <class Curve>
status evaluate_on_coset(const ntt_domain<Curve>& domain, std::span<typename Curve::fr> a,
                         const typename Curve::fr& shift, thread_pool& pool) {
  CUZK_TRY(detail::check_size(domain, a.size(), "evaluate_on_coset"));
  detail::coset_eval(domain, a.data(), detail::make_twist(domain, shift, pool), pool);
  return status::ok();
}

template <class Curve>
status compute_h(const ntt_domain<Curve>& domain, std::span<typename Curve::fr> a,
                 std::span<typename Curve::fr> b, std::span<typename Curve::fr> c, thread_pool& pool) {
  using fr = typename Curve::fr;
  CUZK_TRY(detail::check_size(domain, a.size(), "compute_h: a"));
  CUZK_TRY(detail::check_size(domain, b.size(), "compute_h: b"));
  CUZK_TRY(detail::check_size(domain, c.size(), "compute_h: c"));
  const auto shift = odd_coset_shift<fr>(domain.log_size(), Curve::fr_generator);
  if (!shift) return shift.error();
  const auto twist = detail::make_twist(domain, *shift, pool);
  for (auto v : {a, b, c}) detail::coset_eval(domain, v.data(), twist, pool);
  pool.parallel_for(
      a.size(),
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) a[i] = a[i] * b[i] - c[i];
      },
      1 << 12);
  return status::ok();
}

extern template status evaluate_on_coset<bn254>(const ntt_domain<bn254>&, std::span<bn254::fr>,
                                                const bn254::fr&, thread_pool&);
extern template status evaluate_on_coset<bls12_381>(const ntt_domain<bls12_381>&, std::span<bls12_381::fr>,
                                                    const bls12_381::fr&, thread_pool&);
extern template status compute_h<bn254>(const ntt_domain<bn254>&, std::span<bn254::fr>, std::span<bn254::fr>,
                                        std::span<bn254::fr>, thread_pool&);
extern template status compute_h<bls12_381>(const ntt_domain<bls12_381>&, std::span<bls12_381::fr>,
                                            std::span<bls12_381::fr>, std::span<bls12_381::fr>, thread_pool&);
extern template void distribute_powers<bn254::fr>(std::span<bn254::fr>, const bn254::fr&, const bn254::fr&,
                                                  thread_pool&);
extern template void distribute_powers<bls12_381::fr>(std::span<bls12_381::fr>, const bls12_381::fr&,
                                                      const bls12_381::fr&, thread_pool&);

}  // namespace cuzk::poly
