// SPDX-License-Identifier: MIT OR Apache-2.0
pragma circom 2.0.0;

// A chain of 127 circomlib Poseidon(2) hashes, h[i] = Poseidon(h[i-1], in[1]): 65,659 constraints
// (127 x 517), just over 2^16, so snarkjs's domain is 2^17 (constraints + public signals + 1 rows).
// The interop tests' large circuit. Its zkey is not committed (about 30 MB on BN254, 45 MB on
// BLS12-381, and snarkjs's powers of tau at 2^17 take many minutes on two cores): the tests make
// one with `cuzk setup` and have snarkjs prove and verify with it. The .r1cs is committed
// xz-compressed (the 127 repetitions compress to about 230 KB), the .wtns as is.
// Public signals: [out, in[0], in[1]].
include "circomlib/circuits/poseidon.circom";

template PoseidonChain(n) {
    signal input in[2];
    signal output out;

    component h[n];
    for (var i = 0; i < n; i++) {
        h[i] = Poseidon(2);
        h[i].inputs[0] <== i == 0 ? in[0] : h[i - 1].out;
        h[i].inputs[1] <== in[1];
    }
    out <== h[n - 1].out;
}

component main {public [in]} = PoseidonChain(127);
