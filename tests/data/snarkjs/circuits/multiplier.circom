// SPDX-License-Identifier: MIT OR Apache-2.0
pragma circom 2.0.0;

// A small circuit with several public inputs, for prover and verifier tests that want every kind
// of signal: private inputs (a, b), public inputs (c, d) and a public output.
//   out = a * b * c + d,  and a != 0 (proved with an inverse, so one constraint has no B term
//   from the inputs alone).
// Public signals, in snarkjs order (outputs first, then public inputs): [out, c, d].
template Multiplier() {
    signal input a;
    signal input b;
    signal input c;
    signal input d;
    signal output out;

    signal ab;
    signal abc;
    signal inv;

    ab <== a * b;
    abc <== ab * c;
    out <== abc + d;

    inv <-- 1 / a;
    inv * a === 1;
}

component main {public [c, d]} = Multiplier();
