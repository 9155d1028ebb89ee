// SPDX-License-Identifier: MIT OR Apache-2.0
// What every `cuzk` subcommand shares: the global options, how an error becomes a message and an
// exit status, and the step from a file's curve (known only at run time, from its primes) to the
// code compiled for that curve.
//
// Exit status: 0 on success, 1 on any error or rejected proof, as snarkjs and rapidsnark do, so
// the command drops into scripts written for either; 2 for a usage error (an unknown option, a
// missing argument, an option value out of its range), as most Unix tools do, so that a script can
// tell "called wrongly" from "the work failed". Messages go to stderr as
// "cuzk: error: <file>: <field>: <what was expected, what was found>"; the layers below already
// name the file and field, this only adds the prefix.
#pragma once

#include <cstdio>
#include <string>

#include "base/result.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "formats/curve_id.hpp"

namespace cuzk::apps {

// Options that apply to every subcommand (given before or after it).
struct global_options {
  unsigned threads = 0;  // 0: CUZK_THREADS or the hardware
  bool verbose = false;  // per-phase timings on stderr
};

inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;
inline constexpr int exit_usage = 2;

// Prints "cuzk: error: <message>" and returns exit_failure.
int report_error(const status& s);
int report_error(const std::string& message);
// For an option value checked after parsing: prints "cuzk: error: <message>" and returns exit_usage.
int usage_error(const status& s);
int usage_error(const std::string& message);

using formats::with_curve;

// "12.3 MB", "1.5 GB" (decimal units, as file sizes are usually shown).
std::string human_bytes(double bytes);

}  // namespace cuzk::apps
