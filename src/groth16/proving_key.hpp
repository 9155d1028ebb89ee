// SPDX-License-Identifier: MIT OR Apache-2.0
// A Groth16 proving key as the prover uses it: the snarkjs .zkey's header points and point
// sections, plus the constraint matrices built once from its coefficient section.
//
// `proving_key_view` only points: the point arrays usually live in the mapped .zkey (its layout
// is the in-memory Montgomery affine layout, as snarkjs's zkey reader and writer writes it) or, in the
// daemon, in pinned or device memory, so the prover never copies them. `proving_key` below builds one from
// a .zkey (formats::zkey) or from a key in memory (formats::groth16_key_data, what a development
// setup produces and the zkey writer consumes).
//
// Sections (snarkjs numbering): IC (3) nPublic + 1 points; A (5), B1 (6) in G1 and B2 (7) in G2,
// nVars points each; C (8) nVars - nPublic - 1 points for the private signals; H (9) domainSize
// points. Points at infinity are (0, 0).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "curves/groups.hpp"
#include "formats/zkey.hpp"
#include "formats/zkey_writer.hpp"
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
                                                std::to_string(expected) + ", found " +
                                                std::to_string(found));
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
    if (matrices->domain_size != domain_size)
      return bad("matrix domain size", domain_size, matrices->domain_size);
    return status::ok();
  }
};

// A proving key ready for prove(): the constraint matrices, built once from the key's coefficient
// records, and the view over its points. The points stay where they are (the mapped .zkey, or a
// key in memory), which must outlive this object; the matrices are owned, behind a pointer so the
// view stays valid when the object moves.
template <class Curve>
class proving_key {
 public:
  using fr = typename Curve::fr;

  // Checks and converts every coefficient record of the zkey's section 4 (errors name the record).
  static result<proving_key> from_zkey(const formats::zkey<Curve>& zk);
  // The same for a key in memory, e.g. a fresh development setup's.
  static result<proving_key> from_key_data(const formats::groth16_key_data<Curve>& kd);

  const proving_key_view<Curve>& view() const noexcept { return view_; }
  const synth::constraint_matrices<fr>& matrices() const noexcept { return *matrices_; }

 private:
  proving_key() = default;
  std::unique_ptr<synth::constraint_matrices<fr>> matrices_;
  proving_key_view<Curve> view_;
};

template <class Curve>
result<proving_key<Curve>> proving_key<Curve>::from_zkey(const formats::zkey<Curve>& zk) {
  auto m =
      synth::matrices_from_zkey<fr>(zk.section_bytes(formats::zkey_coefs), zk.n_vars(), zk.domain_size());
  if (!m) return m.error();
  proving_key pk;
  pk.matrices_ = std::make_unique<synth::constraint_matrices<fr>>(std::move(m).value());
  const auto& h = zk.header();
  pk.view_ = {zk.n_vars(), zk.n_public(), zk.domain_size(), h.alpha1, h.beta1,
              h.delta1,    h.beta2,       h.gamma2,         h.delta2, zk.a(),
              zk.b1(),     zk.c(),        zk.h(),           zk.b2(),  pk.matrices_.get()};
  CUZK_TRY(pk.view_.validate());
  return pk;
}

template <class Curve>
result<proving_key<Curve>> proving_key<Curve>::from_key_data(const formats::groth16_key_data<Curve>& kd) {
  std::vector<synth::zkey_coefficient<fr>> recs;
  recs.reserve(kd.coefs.size());
  for (const auto& c : kd.coefs)
    recs.push_back({c.matrix, c.constraint, c.signal, synth::value_times_r(c.value).montgomery()});
  auto m = synth::matrices_from_records<fr>(recs, kd.n_vars, kd.domain_size);
  if (!m) return m.error();
  proving_key pk;
  pk.matrices_ = std::make_unique<synth::constraint_matrices<fr>>(std::move(m).value());
  pk.view_ = {kd.n_vars, kd.n_public, kd.domain_size, kd.alpha1, kd.beta1,
              kd.delta1, kd.beta2,    kd.gamma2,      kd.delta2, kd.a,
              kd.b1,     kd.c,        kd.h,           kd.b2,     pk.matrices_.get()};
  CUZK_TRY(pk.view_.validate());
  return pk;
}

}  // namespace cuzk::groth16
