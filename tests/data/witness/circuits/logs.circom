// SPDX-License-Identifier: MIT OR Apache-2.0
pragma circom 2.0.0;

// Witness code that logs: the witness graph is refused for it, because a replay would not print
// what the circuit's log() prints on every calculation (src/witness/witness_graph_test.cpp).
template Logs() {
    signal input x;
    signal output y;
    log("x is", x);
    y <== x * x;
}

component main = Logs();
