// SPDX-License-Identifier: MIT OR Apache-2.0
pragma circom 2.0.0;

// Witness code whose stack grows with its input: depth(n) calls itself n times, each call with a
// frame of a thousand field elements, which circom's wasm takes from its linear memory beyond the
// size the module declares (reserveStackFr grows the memory). The tests of a calculation's memory
// bound use it: a small n stays within the memory cuzk allows the wasm, a large one goes past it.
function depth(n) {
  var frame[1000];
  frame[0] = n;
  if (n == 0) {
    return 0;
  }
  return depth(n - 1) + frame[0] - n + 1;
}

template DeepStack() {
  signal input n;
  signal output y;
  signal output z;
  y <-- depth(n);
  // A quadratic constraint on y, so that circom keeps it as a wire and the circuit has a proving key.
  z <== y * n;
}

component main = DeepStack();
