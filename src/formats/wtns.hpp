// SPDX-License-Identifier: MIT OR Apache-2.0
// A witness file (.wtns, version 2): every wire's value, in wire order, w[0] = 1.
//
// Layout: section 1, header: u32 n8, prime r (n8 bytes LE), u32 nWitness; section 2: nWitness
// values of n8 bytes, plain (non-Montgomery) little-endian.
//
// values() is a span over the mapping. Section 2 starts at file offset 76 in every file circom or
// snarkjs writes, so the values are not 8-byte aligned; they are exposed as fr_bytes (alignment 1)
// and loaded with a memcpy. open() checks the header and that section 2 holds exactly nWitness
// values; whether each value is below r is checked by validate() (one pass over the witness,
// which a prover that trusts its witness generator may skip).
//
// Thread safety: immutable after open.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "base/result.hpp"
#include "formats/binfile.hpp"
#include "formats/curve_id.hpp"
#include "formats/fr_bytes.hpp"

namespace cuzk::formats {

struct wtns_header {
  uint32_t n8 = 0;
  ff::bigint<4> prime;  // the scalar field r
  curve_id curve = curve_id::bn254;
  uint32_t n_witness = 0;
};

class wtns {
 public:
  static result<wtns> open(const std::string& path);
  static result<wtns> from_binfile(binfile file);

  const wtns_header& header() const noexcept { return header_; }
  std::size_t size() const noexcept { return values_.size(); }
  // Plain LE values, in place.
  std::span<const fr_bytes> values() const noexcept { return values_; }
  // w[i] as an integer (not checked against r: see validate()).
  ff::bigint<4> value(std::size_t i) const { return values_[i].integer(); }

  // Every value below r; out_of_range naming the file and the index of the first that is not.
  // Split across up to 8 threads of the check's own (base/own_threads.hpp), not the global pool:
  // a daemon checks witnesses of GiBs at submit and in a batch's reads while proofs run, and on
  // the global pool, which runs one loop at a time, the checks queued on each other and held up
  // the GPU prover's witness staging behind them.
  status validate() const;

  // The witness is for this curve and has n_vars values (a zkey's nVars); `key_name` names the
  // key in the message.
  status check_fits(curve_id curve, uint32_t n_vars, const std::string& key_name) const;

  const binfile& file() const noexcept { return file_; }

 private:
  explicit wtns(binfile f) : file_(std::move(f)) {}
  // The index of the first value in [begin, end) that is not below r; end where all are.
  std::size_t first_value_not_below_r(std::size_t begin, std::size_t end) const noexcept;
  binfile file_;
  wtns_header header_;
  std::span<const fr_bytes> values_;
};

}  // namespace cuzk::formats
