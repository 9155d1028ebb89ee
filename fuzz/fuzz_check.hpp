// SPDX-License-Identifier: MIT OR Apache-2.0
// What the fuzz targets share: turning a violated property into a crash libFuzzer reports.
//
// A reader that refuses an input is the expected outcome; what the targets look for is a reader
// that crashes, reads out of bounds, hits undefined behaviour (the sanitizers), or accepts an input
// and then breaks a promise its header makes (a record open() validated that coef() refuses, a
// value that does not survive a round trip). The last kind is checked with fuzz_require, which
// aborts with a message so that libFuzzer saves the input as a crash.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace cuzk::fuzz {

[[noreturn]] inline void fail(const char* what, const char* file, int line) {
  std::fprintf(stderr, "fuzz property violated: %s (%s:%d)\n", what, file, line);
  std::abort();
}

}  // namespace cuzk::fuzz

#define FUZZ_REQUIRE(cond) \
  ((cond) ? static_cast<void>(0) : ::cuzk::fuzz::fail(#cond, __FILE__, __LINE__))
