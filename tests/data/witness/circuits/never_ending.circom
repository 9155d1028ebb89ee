// SPDX-License-Identifier: MIT OR Apache-2.0
pragma circom 2.0.0;

// Witness code that never ends for some inputs: walk() steps through the even numbers until it
// meets x, which it does only where x is even; for an odd x it would come round only after about
// p/2 steps. The tests stop it by its time limit and by cancel.
function walk(x) {
  var i = 0;
  while (i != x) {
    i = i + 2;
  }
  return i;
}

template Walk() {
  signal input x;
  signal output y;
  signal output z;
  y <-- walk(x);
  // A quadratic constraint on y, so that circom keeps it as a wire and the circuit has a proving key.
  z <== y * x;
}

component main = Walk();
