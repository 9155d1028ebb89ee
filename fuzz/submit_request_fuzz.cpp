// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target: the daemon's validation of a submit request, without a server or an engine.
//
// The input is a serialized cuzk.v1.SubmitProofRequest, the bytes a gRPC client sends. It goes the
// way SubmitProof takes it: parsed by protobuf, translated by service::to_job_request (wire.hpp),
// then the checks engine::submit makes before it spools or stores anything: the circuit looked up
// (two registered here, the multiplier fixture's keys on both curves), then check_partitions (text
// limits, shape, and each partition's witness against the key: inline bytes checked in place, as
// the engine does before it spools them; a path read through witness_dirs with tests/data/snarkjs
// as the one allowed directory; input JSON refused, as for a circuit without a generator). A
// witness that passed is then read as the worker reads it, which must succeed. What submit does
// besides (the request-id lookup, the store, the queue) needs an engine's state and is not fuzzed
// here.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include <google/protobuf/stubs/logging.h>

#include "cuzk/v1/proving.pb.h"
#include "engine/jobs/request_checks.hpp"
#include "engine/jobs/witness.hpp"
#include "engine/jobs/witness_dirs.hpp"
#include "engine/jobs/key_summary.hpp"
#include "fuzz_check.hpp"
#include "service/wire.hpp"

namespace cuzk {
namespace {

struct registry {
  std::map<std::string, engine::key_summary> circuits;
  engine::witness_dirs dirs;
};

const registry& the_registry() {
  static const registry r = [] {
    const std::string data = CUZK_FUZZ_DATA_DIR "/snarkjs";
    registry out{{}, engine::witness_dirs::create({data}).value()};
    for (const char* curve : {"bn128", "bls12381"})
      out.circuits.emplace(std::string("multiplier-") + curve,
                           engine::read_key_summary(data + "/" + curve + "/circuit.zkey").value());
    return out;
  }();
  return r;
}

void check(const v1::SubmitProofRequest& wire) {
  const registry& reg = the_registry();
  const engine::job_request req = service::to_job_request(wire);
  if (req.deadline) FUZZ_REQUIRE(engine::to_unix_ms(*req.deadline) > 0);  // set only for a positive one
  const auto c = reg.circuits.find(req.circuit);
  if (c == reg.circuits.end()) return;
  engine::partition_checks with;
  with.dirs = &reg.dirs;
  engine::request_fault fault = engine::request_fault::none;
  if (!engine::check_partitions(req, c->second, with, fault)) return;
  for (std::size_t k = 0; k < req.partitions.size(); ++k) {
    const auto& p = req.partitions[k];
    const std::string what = "partition " + std::to_string(k);
    const auto bytes = p.inline_bytes();
    if (bytes.empty()) {
      // A path's file: its bytes stay alive beside the .wtns that borrows them.
      auto f = engine::open_witness(p.path, engine::witness_origin::client_path, reg.dirs, c->second);
      if (!f) return;
      // What the worker reads later (job_run.cpp): the values where they were read.
      FUZZ_REQUIRE(engine::read_witness(std::move(f).value(), c->second).is_ok());
    } else {
      // An inline witness that passed is what the spool holds and the worker opens.
      auto w = engine::witness_from_bytes({bytes.begin(), bytes.end()}, what);
      if (!w) return;
      if (!engine::check_witness(*w, c->second, what)) return;
      FUZZ_REQUIRE(engine::read_witness(*w, c->second).is_ok());
    }
  }
}

}  // namespace
}  // namespace cuzk

// protobuf logs every string field that is not UTF-8 (the parse then fails, as it does in the
// daemon): most mutated inputs, and nothing to read in the fuzzer's output.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  (void)cuzk::the_registry();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  cuzk::v1::SubmitProofRequest req;
  if (!req.ParseFromArray(data, static_cast<int>(size))) return 0;
  cuzk::check(req);
  return 0;
}
