// SPDX-License-Identifier: MIT OR Apache-2.0
pragma circom 2.0.0;

// A failing assert for the witness generator's tests: circom's witness code stops with error code
// 4 ("Assert Failed.") and the template and line, which the caller must report as circom does.
// With x = 5 it succeeds (out = 25); with x >= 100 the assert in Bounded fails.
template Bounded(limit) {
    signal input in;
    signal output out;
    assert(in < limit);
    out <== in * in;
}

template RangeCheck() {
    signal input x;
    signal output out;
    component b = Bounded(100);
    b.in <== x;
    out <== b.out;
}

component main = RangeCheck();
