// SPDX-License-Identifier: MIT OR Apache-2.0
pragma circom 2.0.0;

// Multi-dimensional inputs for the witness generator's tests (tests/data/witness/README.md):
// y = M x + k for a 2x3 matrix M, out = y[0] * y[1], and a 2x2x2 array whose entries must be
// squared into `sq`. Its input.json mixes decimal strings, numbers, a hex string and a negative
// value, so the input rules (flattening in row-major order, reduction mod r) are all exercised.
template Matrix() {
    signal input m[2][3];
    signal input x[3];
    signal input k;
    signal input cube[2][2][2];
    signal output y[2];
    signal output out;
    signal output sq[8];

    signal prod[2][3];
    for (var i = 0; i < 2; i++) {
        for (var j = 0; j < 3; j++) {
            prod[i][j] <== m[i][j] * x[j];
        }
        y[i] <== prod[i][0] + prod[i][1] + prod[i][2] + k;
    }
    out <== y[0] * y[1];
    for (var a = 0; a < 2; a++) {
        for (var b = 0; b < 2; b++) {
            for (var c = 0; c < 2; c++) {
                sq[a * 4 + b * 2 + c] <== cube[a][b][c] * cube[a][b][c];
            }
        }
    }
}

component main {public [k]} = Matrix();
