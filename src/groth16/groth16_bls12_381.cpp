// The Groth16 prover, verifier and setup compiled for BLS12-381.
#include "curves/bls12_381_groups.hpp"
#include "groth16/setup_impl.hpp"

namespace cuzk::groth16 {

template toxic_waste<bls12_381> random_toxic_waste<bls12_381>();
template result<key_data<bls12_381>> setup<bls12_381>(const synth::constraint_system<bls12_381::fr>&, const toxic_waste<bls12_381>&);

}  // namespace cuzk::groth16
