// The Groth16 prover, verifier and setup compiled for BN254.
#include "curves/bn254_groups.hpp"
#include "groth16/setup_impl.hpp"

namespace cuzk::groth16 {

template toxic_waste<bn254> random_toxic_waste<bn254>();
template result<key_data<bn254>> setup<bn254>(const synth::constraint_system<bn254::fr>&, const toxic_waste<bn254>&);

}  // namespace cuzk::groth16
