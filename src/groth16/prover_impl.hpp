// Definitions for prover.hpp, compiled once per curve in groth16_<curve>.cpp.
#pragma once

#include <bit>
#include <chrono>
#include <vector>

#include "ec/scalar_mul.hpp"
#include "groth16/os_random.hpp"
#include "groth16/prover.hpp"
#include "msm/pippenger.hpp"
#include "poly/odd_coset.hpp"
#include "synth/evaluate_abc.hpp"

namespace cuzk::groth16 {

namespace detail {

// Times one step into `slot` (when timings are wanted).
class phase_timer {
 public:
  explicit phase_timer(double* slot) : slot_(slot), start_(std::chrono::steady_clock::now()) {}
  ~phase_timer() {
    if (slot_ != nullptr)
      *slot_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  phase_timer(const phase_timer&) = delete;
  phase_timer& operator=(const phase_timer&) = delete;

 private:
  double* slot_;
  std::chrono::steady_clock::time_point start_;
};

template <class Curve>
struct prover_state {
  using fr = typename Curve::fr;
  using repr = typename fr::repr;
  const proving_key_view<Curve>& pk;
  std::span<const repr> w;
  fr r, s;
  thread_pool& pool;
  std::vector<fr> a, b, c;
  std::vector<repr> h;  // canonical H scalars
  g1<Curve> pi_a, pi_b1, c_sum, h_sum;
  g2<Curve> pi_b;
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
  st.pi_a =
      msm::msm<g1_group<Curve>>(st.pk.a, st.w, st.pool) + st.pk.alpha1 + ec::scalar_mul(st.pk.delta1, st.r);
}

template <class Curve>
void msm_b_g2(prover_state<Curve>& st) {
  st.pi_b =
      msm::msm<g2_group<Curve>>(st.pk.b2, st.w, st.pool) + st.pk.beta2 + ec::scalar_mul(st.pk.delta2, st.s);
}

template <class Curve>
void msm_b_g1(prover_state<Curve>& st) {
  st.pi_b1 =
      msm::msm<g1_group<Curve>>(st.pk.b1, st.w, st.pool) + st.pk.beta1 + ec::scalar_mul(st.pk.delta1, st.s);
}

template <class Curve>
void msm_c(prover_state<Curve>& st) {
  st.c_sum = msm::msm<g1_group<Curve>>(st.pk.c, st.w.subspan(st.pk.n_public + 1), st.pool);
}

template <class Curve>
void msm_h(prover_state<Curve>& st) {
  st.h_sum = msm::msm<g1_group<Curve>>(st.pk.h, std::span<const typename Curve::fr::repr>(st.h), st.pool);
}

template <class Curve>
formats::proof<Curve> assemble(const prover_state<Curve>& st) {
  const g1<Curve> pi_c = st.c_sum + st.h_sum + ec::scalar_mul(st.pi_a, st.s) +
                         ec::scalar_mul(st.pi_b1, st.r) - ec::scalar_mul(st.pk.delta1, st.r * st.s);
  return {st.pi_a.to_affine(), st.pi_b.to_affine(), pi_c.to_affine()};
}

}  // namespace detail

template <class Curve>
result<formats::proof<Curve>> prove_with(const proving_key_view<Curve>& pk,
                                         std::span<const typename Curve::fr::repr> witness,
                                         const typename Curve::fr& r, const typename Curve::fr& s,
                                         phase_timings* timings, thread_pool& pool) {
  CUZK_TRY(pk.validate());
  if (witness.size() != pk.n_vars)
    return status(errc::invalid_argument,
                  "witness: length: expected the key's nVars = " + std::to_string(pk.n_vars) + ", found " +
                      std::to_string(witness.size()));
  phase_timings local;
  phase_timings& t = timings != nullptr ? *timings : local;
  detail::prover_state<Curve> st{pk, witness, r, s, pool, {}, {}, {}, {}, {}, {}, {}, {}, {}};
  using detail::phase_timer;
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
    phase_timer timer(&t.msm_b_g1);
    detail::msm_b_g1(st);
  }
  {
    phase_timer timer(&t.msm_b_g2);
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
  return detail::assemble(st);
}

template <class Curve>
result<formats::proof<Curve>> prove(const proving_key_view<Curve>& pk,
                                    std::span<const typename Curve::fr::repr> witness, phase_timings* timings,
                                    thread_pool& pool) {
  using fr = typename Curve::fr;
  return prove_with<Curve>(pk, witness, os_random_scalar<fr>(), os_random_scalar<fr>(), timings, pool);
}

}  // namespace cuzk::groth16
