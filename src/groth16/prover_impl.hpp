// SPDX-License-Identifier: MIT OR Apache-2.0
// Definitions for prover.hpp, compiled once per curve in groth16_<curve>.cpp.
#pragma once

#include <bit>
#include <chrono>
#include <vector>

#include "groth16/assemble.hpp"
#include "groth16/os_random.hpp"
#include "groth16/prover.hpp"
#include "msm/pippenger.hpp"
#include "poly/odd_coset.hpp"
#include "synth/evaluate_abc.hpp"

namespace cuzk::groth16 {

namespace detail {

template <class Curve>
struct prover_state {
  using fr = typename Curve::fr;
  using repr = typename fr::repr;
  const proving_key_view<Curve>& pk;
  std::span<const repr> w;
  thread_pool& pool;
  std::vector<fr> a, b, c;
  std::vector<repr> h;  // canonical H scalars
  msm_sums<Curve> sums;
};

template <class Curve>
status synthesize(prover_state<Curve>& st) {
  const std::size_t n = st.pk.domain_size;
  st.a.assign(n, {});
  st.b.assign(n, {});
  st.c.assign(n, {});
  return synth::evaluate_abc<typename Curve::fr>(*st.pk.matrices, st.w, st.a, st.b, st.c, st.pool);
}

template <class Curve>
status compute_h(prover_state<Curve>& st) {
  using fr = typename Curve::fr;
  const std::size_t log_n = static_cast<std::size_t>(std::countr_zero(st.pk.domain_size));
  auto domain = poly::ntt_domain<Curve>::create(log_n, st.pool);
  if (!domain) return domain.error();
  CUZK_TRY(poly::compute_h<Curve>(*domain, st.a, st.b, st.c, st.pool));
  st.h.resize(st.a.size());
  st.pool.parallel_for(
      st.a.size(),
      [&](std::size_t lo, std::size_t hi) {
        for (std::size_t i = lo; i < hi; ++i) st.h[i] = st.a[i].to_canonical();
      },
      1 << 12);
  std::vector<fr>().swap(st.b);  // a holds h now; b and c are no longer needed
  std::vector<fr>().swap(st.c);
  return status::ok();
}

template <class Curve>
void msm_a(prover_state<Curve>& st) {
  st.sums.a = msm::msm<g1_group<Curve>>(st.pk.a, st.w, st.pool);
}

template <class Curve>
void msm_b_g2(prover_state<Curve>& st) {
  st.sums.b2 = msm::msm<g2_group<Curve>>(st.pk.b2, st.w, st.pool);
}

template <class Curve>
void msm_b_g1(prover_state<Curve>& st) {
  st.sums.b1 = msm::msm<g1_group<Curve>>(st.pk.b1, st.w, st.pool);
}

template <class Curve>
void msm_c(prover_state<Curve>& st) {
  st.sums.c = msm::msm<g1_group<Curve>>(st.pk.c, st.w.subspan(st.pk.n_public + 1), st.pool);
}

template <class Curve>
void msm_h(prover_state<Curve>& st) {
  st.sums.h = msm::msm<g1_group<Curve>>(st.pk.h, std::span<const typename Curve::fr::repr>(st.h), st.pool);
}

}  // namespace detail

template <class Curve>
result<formats::proof<Curve>> prove_with(const proving_key_view<Curve>& pk,
                                         std::span<const typename Curve::fr::repr> witness,
                                         const typename Curve::fr& r, const typename Curve::fr& s,
                                         phase_timings* timings, cpu_context where) {
  CUZK_TRY(pk.validate());
  if (witness.size() != pk.n_vars)
    return status(errc::invalid_argument,
                  "witness: length: expected the key's nVars = " + std::to_string(pk.n_vars) + ", found " +
                      std::to_string(witness.size()));
  phase_timings local;
  phase_timings& t = timings != nullptr ? *timings : local;
  t = {};
  phase_timer whole(&t.total);
  detail::prover_state<Curve> st{pk, witness, *where.pool, {}, {}, {}, {}, {}};
  {
    phase_timer timer(&t.synthesis);
    CUZK_TRY(detail::synthesize(st));
  }
  {
    phase_timer timer(&t.ntt);
    CUZK_TRY(detail::compute_h(st));
  }
  {
    phase_timer timer(&t.msm_a);
    detail::msm_a(st);
  }
  {
    phase_timer timer(&t.msm_b1);
    detail::msm_b_g1(st);
  }
  {
    phase_timer timer(&t.msm_b2);
    detail::msm_b_g2(st);
  }
  {
    phase_timer timer(&t.msm_c);
    detail::msm_c(st);
  }
  {
    phase_timer timer(&t.msm_h);
    detail::msm_h(st);
  }
  phase_timer timer(&t.assembly);
  return assemble(pk, st.sums, r, s);
}

template <class Curve>
result<formats::proof<Curve>> prove(const proving_key_view<Curve>& pk,
                                    std::span<const typename Curve::fr::repr> witness, phase_timings* timings,
                                    cpu_context where) {
  using fr = typename Curve::fr;
  return prove_with<Curve>(pk, witness, os_random_scalar<fr>(), os_random_scalar<fr>(), timings, where);
}

}  // namespace cuzk::groth16
