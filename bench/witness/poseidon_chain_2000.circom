// SPDX-License-Identifier: MIT OR Apache-2.0
pragma circom 2.0.0;

// The witness benchmark's circuit (scripts/bench_witness.sh, docs/witness.md): a chain of 2,000
// circomlib Poseidon(2) hashes, h[i] = Poseidon(h[i-1], in[1]), 1,034,000 constraints with
// circom's default simplification (--O1: 517 a hash), so over a million. The tests' 127-hash
// chain (tests/data/snarkjs/circuits/poseidon_chain.circom) scaled up.
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

component main {public [in]} = PoseidonChain(2000);
