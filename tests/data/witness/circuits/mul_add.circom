// SPDX-License-Identifier: MIT OR Apache-2.0
pragma circom 2.0.0;

// c = a * b + a: as many wires as mul.circom (1, c, a, b) and as many public signals, another
// circuit: its wasm passes every check registration can make against mul's key, and its
// witnesses do not satisfy mul's constraints.
template MulAdd() {
  signal input a;
  signal input b;
  signal output c;
  c <== a * b + a;
}

component main = MulAdd();
