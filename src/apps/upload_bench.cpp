// SPDX-License-Identifier: MIT OR Apache-2.0
// `cuzk bench upload` (see upload_bench.hpp).
#include "apps/upload_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace cuzk::apps {
namespace {

namespace v1 = cuzk::v1;
using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

struct call_kind {
  const char* name;
  v1::SubmitProofRequest request;
  // The refusal that shows the daemon read the whole request: its status and a part of its message.
  grpc::StatusCode expected;
  const char* expected_words;
  std::vector<double> serialize_ms, rpc_ms;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int run_upload_bench(v1::ProvingEngine::Stub& stub, const std::string& circuit, const std::string& wtns,
                     uint64_t rounds) {
  if (wtns.size() < 32 + 76) {
    std::fprintf(stderr, "cuzk: bench upload: the witness is %zu bytes, too short for a .wtns with values\n",
                 wtns.size());
    return 1;
  }
  std::vector<call_kind> kinds(2);
  kinds[0].name = "no such circuit";
  kinds[0].request.set_circuit("cuzk-bench-upload-no-such-circuit");
  kinds[0].request.add_partitions()->set_wtns(wtns);
  kinds[0].expected = grpc::StatusCode::NOT_FOUND;
  kinds[0].expected_words = "not registered";
  // A .wtns ends with its values section: its last 32 bytes are the last value, made >= r.
  std::string bad = wtns;
  std::fill(bad.end() - 32, bad.end(), '\xff');
  kinds[1].name = "last value >= r";
  kinds[1].request.set_circuit(circuit);
  kinds[1].request.add_partitions()->set_wtns(std::move(bad));
  kinds[1].expected = grpc::StatusCode::INVALID_ARGUMENT;
  kinds[1].expected_words = "is not below r";

  for (uint64_t r = 0; r < rounds; ++r) {
    for (auto& k : kinds) {
      // What the stub does inside the call, timed on its own.
      auto t0 = clock_type::now();
      std::string wire;
      if (!k.request.SerializeToString(&wire)) {
        std::fprintf(stderr, "cuzk: bench upload: the request with %s could not be encoded (over 2 GiB?)\n",
                     k.name);
        return 1;
      }
      k.serialize_ms.push_back(ms_since(t0));
      wire = std::string();
      v1::ProofResult result;
      grpc::ClientContext ctx;
      t0 = clock_type::now();
      const grpc::Status s = stub.Prove(&ctx, k.request, &result);
      k.rpc_ms.push_back(ms_since(t0));
      if (s.error_code() != k.expected || s.error_message().find(k.expected_words) == std::string::npos) {
        std::fprintf(
            stderr,
            "cuzk: bench upload: the call with %s ended with status %d (%s); expected %d, \"...%s...\": "
            "the daemon must refuse it once the request is whole\n",
            k.name, static_cast<int>(s.error_code()), s.error_message().c_str(), static_cast<int>(k.expected),
            k.expected_words);
        return 1;
      }
    }
  }
  std::printf("upload bytes=%zu rounds=%llu\n", wtns.size(), static_cast<unsigned long long>(rounds));
  std::printf("%-18s %14s %10s %10s %10s\n", "call", "serialize_ms", "rpc_ms", "rpc_min", "rpc_max");
  for (const auto& k : kinds)
    std::printf("%-18s %14.1f %10.1f %10.1f %10.1f\n", k.name, median(k.serialize_ms), median(k.rpc_ms),
                *std::min_element(k.rpc_ms.begin(), k.rpc_ms.end()),
                *std::max_element(k.rpc_ms.begin(), k.rpc_ms.end()));
  std::printf(
      "(serialize: the request encoded once on its own; rpc: the whole call, which encodes it again, "
      "sends it, and waits for the refusal)\n");
  return 0;
}

}  // namespace cuzk::apps
