// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk selfcheck`: proves to the person running it that this build's arithmetic is right on this
// machine, and shows how fast it is. For each curve it checks the generators, bilinearity of the
// pairing on fresh random scalars, and a Groth16-shaped product of pairings; it times the field
// multiply, a G1 addition and a pairing; and where a GPU is present it compares a million device
// field products with the CPU. Exit status 0 only when every check passed.
#pragma once

namespace cuzk::apps {

struct selfcheck_options {
  bool gpu = true;  // run the GPU check when a device is present
};

int run_selfcheck(const selfcheck_options& options);

}  // namespace cuzk::apps
