// SPDX-License-Identifier: MIT OR Apache-2.0
pragma circom 2.0.0;

// Ten public signals, and private signals that appear only on the C side of the constraint system.
//   t[i] = x[i] * k is written by a multiplication and read only by the linear constraint for
//   `sum`; circom puts a linear constraint entirely in C (A = B = 0), so no A or B entry mentions
//   t[i]: their A, B1 and B2 points in the zkey are the point at infinity, (0, 0). A prover's
//   multi-exponentiations and a zkey writer have to handle those.
// Public signals, in snarkjs order (outputs first, then public inputs): [sum, sq, x[0..7]].
template Wide(n) {
    signal input x[n];
    signal input k;
    signal output sum;
    signal output sq;

    signal t[n];
    var acc = 0;
    for (var i = 0; i < n; i++) {
        t[i] <== x[i] * k;
        acc += t[i];
    }
    sum <== acc + x[0];
    sq <== k * k;
}

component main {public [x]} = Wide(8);
