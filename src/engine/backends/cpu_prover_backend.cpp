// SPDX-License-Identifier: MIT OR Apache-2.0
// The CPU backend (see cpu_prover_backend.hpp).
#include "engine/backends/cpu_prover_backend.hpp"

#include "formats/curve_id.hpp"
#include "groth16/prover.hpp"

namespace cuzk::engine {

namespace {

template <class C>
result<any_proof> prove_as(const key_material<C>& k, const any_witness& witness, prove_report& report) {
  if (witness.curve != formats::curve_id_of<C>)
    return status(errc::invalid_argument,
                  std::string("witness: expected ") + C::name + " values for a " + C::name + " key");
  auto p = groth16::prove<C>(k.view, std::span<const typename C::fr::repr>(witness.values), &report.phases);
  report.ran_on = "cpu";
  if (!p) return p.error();
  return any_proof(std::move(p).value());
}

}  // namespace

result<any_proof> cpu_prover_backend::prove(const prove_call& call, const any_witness& witness,
                                            const cancel_token&, prove_report& report) {
  return formats::with_curve(call.key.curve(), [&]<class C>() { return prove_as<C>(*call.key.get<C>(), witness, report); });
}

}  // namespace cuzk::engine
