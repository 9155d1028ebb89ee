// A Groth16 proving key as the prover uses it: the snarkjs .zkey's header points and point
// sections, plus the constraint matrices built once from its coefficient section.
//
// `proving_key_view` only points: the point arrays usually live in the mapped .zkey (its layout
// is the in-memory Montgomery affine layout, see reference section 5.2) or, in the daemon, in
// pinned or device memory, so the prover never copies them. `key_data` owns the same content;
// it is what a development setup produces and what the formats layer's zkey writer consumes.
//
// Sections (snarkjs numbering): IC (3) nPublic + 1 points; A (5), B1 (6) in G1 and B2 (7) in G2,
// nVars points each; C (8) nVars - nPublic - 1 points for the private signals; H (9) domainSize
// points. Points at infinity are (0, 0).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "curves/groups.hpp"
#include "synth/constraint_matrices.hpp"

namespace cuzk::groth16 {

template <class Curve>
struct proving_key_view {
  using fr = typename Curve::fr;
  std::size_t n_vars = 0;
  std::size_t n_public = 0;
  std::size_t domain_size = 0;
  g1_affine<Curve> alpha1, beta1, delta1;
  g2_affine<Curve> beta2, gamma2, delta2;
  std::span<const g1_affine<Curve>> a, b1, c, h;
  std::span<const g2_affine<Curve>> b2;
  const synth::constraint_matrices<fr>* matrices = nullptr;

  // The section lengths agree with the header and the matrices.
  status validate() const {
    auto bad = [](const char* what, std::size_t expected, std::size_t found) {
      return status(errc::invalid_argument, std::string("proving key: ") + what + ": expected " +
                                                std::to_string(expected) + ", found " + std::to_string(found));
    };
    if (domain_size == 0 || (domain_size & (domain_size - 1)) != 0)
      return status(errc::invalid_argument,
                    "proving key: domainSize: expected a power of two, found " + std::to_string(domain_size));
    if (n_public + 1 > n_vars) return bad("nVars (at least nPublic + 1)", n_public + 1, n_vars);
    if (a.size() != n_vars) return bad("A section points", n_vars, a.size());
    if (b1.size() != n_vars) return bad("B1 section points", n_vars, b1.size());
    if (b2.size() != n_vars) return bad("B2 section points", n_vars, b2.size());
    if (c.size() != n_vars - n_public - 1) return bad("C section points", n_vars - n_public - 1, c.size());
    if (h.size() != domain_size) return bad("H section points", domain_size, h.size());
    if (matrices == nullptr) return status(errc::invalid_argument, "proving key: no constraint matrices");
    if (matrices->n_vars != n_vars) return bad("matrix columns", n_vars, matrices->n_vars);
    if (matrices->domain_size != domain_size) return bad("matrix domain size", domain_size, matrices->domain_size);
    return status::ok();
  }
};

// An owned proving key with its coefficient records, as a setup makes it.
template <class Curve>
struct key_data {
  using fr = typename Curve::fr;
  std::size_t n_vars = 0;
  std::size_t n_public = 0;
  std::size_t domain_size = 0;
  g1_affine<Curve> alpha1, beta1, delta1;
  g2_affine<Curve> beta2, gamma2, delta2;
  std::vector<g1_affine<Curve>> ic, a, b1, c, h;
  std::vector<g2_affine<Curve>> b2;
  std::vector<synth::zkey_coefficient<fr>> coefficients;  // the zkey's section 4 records
  // Where the key came from; a development setup says it is not from a ceremony.
  std::string provenance;

  proving_key_view<Curve> view(const synth::constraint_matrices<fr>& m) const {
    return {n_vars, n_public, domain_size, alpha1, beta1, delta1, beta2, gamma2, delta2, a, b1, c, h, b2, &m};
  }
};

}  // namespace cuzk::groth16
