// SPDX-License-Identifier: MIT OR Apache-2.0
// The explicit instantiations of the groth16 layer for one curve, written once: each
// groth16_<curve>.cpp expands CUZK_GROTH16_INSTANTIATE for its curve, so that the two curves
// compile in parallel and every other file sees only the `extern template` declarations.
#pragma once

#include "groth16/circuit_io_impl.hpp"
#include "groth16/prover_impl.hpp"
#include "groth16/setup_impl.hpp"
#include "groth16/verifier_impl.hpp"

#define CUZK_GROTH16_INSTANTIATE(C)                                                                        \
  namespace cuzk::groth16 {                                                                                \
  template toxic_waste<C> random_toxic_waste<C>();                                                         \
  template result<development_key<C>> setup<C>(const synth::constraint_system<C::fr>&, const toxic_waste<C>&,    \
                                               const fixed_base_engine<C>&);                                  \
  template result<formats::proof<C>> prove_with<C>(const proving_key_view<C>&, std::span<const C::fr::repr>, \
                                                   const C::fr&, const C::fr&, phase_timings*, cpu_context); \
  template result<formats::proof<C>> prove<C>(const proving_key_view<C>&, std::span<const C::fr::repr>,      \
                                              phase_timings*, cpu_context);                                  \
  template status verify<C>(const formats::verification_key<C>&, std::span<const C::fr>,                    \
                            const formats::proof<C>&);                                                      \
  template result<synth::constraint_system<C::fr>> constraint_system_of<C>(const formats::r1cs&);            \
  template result<std::vector<C::fr::repr>> witness_of<C>(const formats::wtns&);                            \
  template status write_wtns<C>(const std::string&, std::span<const C::fr::repr>);                          \
  }  // namespace cuzk::groth16
