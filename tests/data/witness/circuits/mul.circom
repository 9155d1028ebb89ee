// SPDX-License-Identifier: MIT OR Apache-2.0
pragma circom 2.0.0;

// c = a * b: one constraint, four wires (1, c, a, b).
template Mul() {
  signal input a;
  signal input b;
  signal output c;
  c <== a * b;
}

component main = Mul();
