// SPDX-License-Identifier: MIT OR Apache-2.0
pragma circom 2.0.0;

// circomlib's Poseidon(2): a few hundred constraints with dense linear combinations, so the
// a/b/c evaluation, the H polynomial and the MSMs all see a realistic mix of coefficients.
// circomlib's round constants are chosen for BN254's scalar field; on BLS12-381 the same circuit
// compiles (every constant is below both moduli) and is a valid test circuit, though not a
// Poseidon instance for that field.
// Public signals: [hash, inputs[0], inputs[1]].
include "circomlib/circuits/poseidon.circom";

template PoseidonHash() {
    signal input inputs[2];
    signal output hash;

    component h = Poseidon(2);
    h.inputs[0] <== inputs[0];
    h.inputs[1] <== inputs[1];
    hash <== h.out;
}

component main {public [inputs]} = PoseidonHash();
