// Synthesis compiled for BN254's scalar field.
#include "curves/bn254.hpp"
#include "synth/constraint_matrices_impl.hpp"
#include "synth/evaluate_abc_impl.hpp"
#include "synth/synthetic_circuit_impl.hpp"

namespace cuzk::synth {

using fr = bn254::fr;
template result<constraint_matrices<fr>> matrices_from_zkey<fr>(std::span<const uint8_t>, std::size_t,
                                                                std::size_t);
template result<constraint_matrices<fr>> matrices_from_records<fr>(std::span<const zkey_coefficient<fr>>,
                                                                   std::size_t, std::size_t);
template status evaluate_abc<fr>(const constraint_matrices<fr>&, std::span<const fr::repr>, std::span<fr>,
                                 std::span<fr>, std::span<fr>, thread_pool&);

template synthetic_circuit<fr> make_synthetic_circuit<fr>(unsigned, witness_kind, uint64_t);

}  // namespace cuzk::synth
