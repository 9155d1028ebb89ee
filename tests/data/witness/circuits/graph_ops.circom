// SPDX-License-Identifier: MIT OR Apache-2.0
pragma circom 2.0.0;

// Every kind of field function circom's witness code calls, for the witness graph's tests
// (src/witness/witness_graph_test.cpp): bits by shifts and masks, an inverse behind a test of an
// input, division, integer division and remainder, a power, the bitwise and logical operators,
// every comparison, an array indexed by an input, a branch and a loop whose count depend on the
// inputs, and an assert. Inputs on one path through this code replay the recorded graph; inputs
// on another fall back to the wasm, which the test checks too.
template GraphOps() {
    signal input a;
    signal input b;
    signal input n;       // below 2^16
    signal input sel;     // 0 to 3
    signal input arr[4];
    signal output out[13];

    assert(n < 65536);
    signal bits[16];
    var acc = 0;
    for (var i = 0; i < 16; i++) {
        bits[i] <-- (n >> i) & 1;
        bits[i] * (bits[i] - 1) === 0;
        acc += bits[i] * (1 << i);
    }
    acc === n;

    signal inv;
    inv <-- a != 0 ? 1 / a : 0;
    signal isz;
    isz <== 1 - a * inv;
    a * isz === 0;

    var table[4];
    for (var i = 0; i < 4; i++) table[i] = arr[i];
    var sum = 0;
    for (var i = 0; i < sel; i++) sum += arr[i];
    var branch;
    if (n > 1000) {
        branch = a * 3;
    } else {
        branch = b + 7;
    }

    var w[13];
    w[0] = b != 0 ? a / b : 0;
    w[1] = n \ 7;
    w[2] = n % 7;
    w[3] = a ** 5;
    w[4] = (n ^ 23130) | 3;
    w[5] = ~n & 65535;
    w[6] = (a < b) + (a <= b) * 2 + (a > b) * 4 + (a >= b) * 8 + (a == b) * 16 + (a != b) * 32;
    w[7] = (a && b) + (a || 0) * 2 + (!a) * 4;
    w[8] = table[sel];
    w[9] = n << 3;
    w[10] = branch;
    w[11] = sum;
    w[12] = -a + b * b - n;
    // Each value a wire of a quadratic constraint, so that circom keeps it in the witness.
    signal kept[13];
    for (var k = 0; k < 13; k++) {
        out[k] <-- w[k];
        kept[k] <== out[k] * a;
    }
}

component main {public [a]} = GraphOps();
