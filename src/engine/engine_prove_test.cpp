// SPDX-License-Identifier: MIT OR Apache-2.0
// The engine end to end with the real CPU prover: snarkjs fixtures in, proofs out that verify
// against snarkjs's verification_key.json (an oracle independent of the engine's own check), on
// both curves, from the warm and the hot tier; a backend that batches partitions gets them in
// batches and its proofs come back in partition order; and a backend whose proofs are wrong is
// caught by the engine's verification.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <future>
#include <initializer_list>
#include <thread>

#include "engine/backends/cpu_prover_backend.hpp"
#include "engine/engine.hpp"
#include "engine/engine_test_util.hpp"
#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/verification_key.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using namespace cuzk::engine::test;

std::string file_text(const std::string& path) {
  auto b = read_bytes(path);
  return std::string(b.begin(), b.end());
}

std::unique_ptr<engine> real_engine(engine_options o = {}) {
  if (o.spool_dir.empty() && o.store_path.empty()) o.spool_dir = temp_dir("prove-spool");
  auto e = engine::create(std::move(o));
  EXPECT_TRUE(e.is_ok()) << e.error().to_string();
  return std::move(e).value();
}

TEST(engine_prove, poseidon_bn128_fixture_proves_and_verifies) {
  auto e = real_engine();
  ASSERT_TRUE(e->register_circuit("poseidon", poseidon_zkey, priority::high).is_ok());
  const job_id id = e->submit(request("poseidon", 2, std::nullopt, poseidon_wtns)).value();
  const auto r = e->await(id, 0ms).value();
  ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
  EXPECT_EQ(r.prio, priority::high);  // the circuit's default
  ASSERT_EQ(r.proofs.size(), 2u);
  const std::string pub = file_text(data_dir + "/snarkjs/bn128/poseidon/public.json");
  for (const auto& p : r.proofs) expect_valid_proof<bn254>(p, poseidon_vk, pub);
  EXPECT_NE(r.proofs[0].proof_json, r.proofs[1].proof_json);  // fresh r, s per proof
  EXPECT_GT(r.times[phase::prove], 0.0);
  EXPECT_GT(r.times[phase::verify], 0.0);
  EXPECT_GE(r.times[phase::total], r.times[phase::prove]);
  const auto s = e->snapshot();
  EXPECT_EQ(s.counters.total.completed, 1u);
  EXPECT_EQ(s.counters.total.partitions_proved, 2u);
  EXPECT_EQ(s.counters.circuits.at("poseidon").phases[static_cast<int>(phase::prove)].count, 1u);
  EXPECT_EQ(s.backend, "cpu");
  // A CPU job: no GPU phases in its result or its histograms.
  EXPECT_EQ(r.ran_on, "cpu");
  EXPECT_EQ(r.h2d_bytes, 0.0);
  EXPECT_EQ(r.times[phase::msm_h], 0.0);
  EXPECT_EQ(s.counters.circuits.at("poseidon").phases[static_cast<int>(phase::msm_h)].count, 0u);
  EXPECT_TRUE(s.devices.empty());
  EXPECT_TRUE(s.device_tiers.empty());
  EXPECT_EQ(s.workers.at(0).device, "cpu");
}

TEST(engine_prove, bls12_381_from_the_hot_tier) {
  engine_options o;
  o.budgets.hot = 64 << 20;
  auto e = real_engine(o);
  ASSERT_TRUE(e->register_circuit("bls", bls_zkey).is_ok());
  ASSERT_TRUE(e->preload("bls", key_tier::hot).is_ok());
  const auto keys = e->snapshot().keys;
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].tier_name, "hot(pageable)");
  const job_id id = e->submit(request("bls", 1, std::nullopt, bls_wtns)).value();
  const auto r = e->await(id, 0ms).value();
  ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
  expect_valid_proof<bls12_381>(r.proofs.at(0), bls_vk, file_text(data_dir + "/snarkjs/bls12381/public.json"));
}

// The daemon's case (docs/HARDENING.md, finding 1): a key it serves is truncated, then overwritten,
// in place after it was loaded. The engine proves from its private copy and the proofs still
// verify; a key mapped in place would have killed the process with SIGBUS on the second prove.
TEST(engine_prove, a_key_truncated_or_overwritten_after_loading_still_proves) {
  const std::string dir = temp_dir("key-copy");
  const std::string zkey = dir + "/circuit.zkey";
  std::filesystem::copy_file(poseidon_zkey, zkey);
  engine_options o;
  o.key_copy_dir = dir;
  auto e = real_engine(o);
  ASSERT_TRUE(e->register_circuit("poseidon", zkey).is_ok());
  const std::string pub = file_text(data_dir + "/snarkjs/bn128/poseidon/public.json");
  auto prove_once = [&] {
    const job_id id = e->submit(request("poseidon", 1, std::nullopt, poseidon_wtns)).value();
    const auto r = e->await(id, 0ms).value();
    ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
    expect_valid_proof<bn254>(r.proofs.at(0), poseidon_vk, pub);
  };
  prove_once();
  std::filesystem::resize_file(zkey, 100000);
  prove_once();
  {
    std::ofstream f(zkey, std::ios::binary | std::ios::trunc);
    f << std::string(254815, '\0');
  }
  prove_once();
  e.reset();
  std::filesystem::remove_all(dir);
}

// The CPU prover behind a backend that asks for batches of up to `most` partitions and records
// the sizes the engine asked it to prove at once (the GPU backend's batching, without a GPU).
class batching_backend final : public prover_backend {
 public:
  explicit batching_backend(unsigned most) : most_(most) {}
  const char* name() const noexcept override { return "batching"; }
  unsigned batch_partitions(const prove_call&, unsigned remaining) override { return std::min(remaining, most_); }
  result<any_proof> prove(const prove_call& call, const any_witness& w, const cancel_token& c,
                          prove_report& r) override {
    sizes.push_back(1);
    wait_at_gate();
    return cpu_.prove(call, w, c, r);
  }
  result<std::vector<any_proof>> prove_batch(const prove_call& call, batch_witnesses& ws, const cancel_token& c,
                                             prove_report& r) override {
    sizes.push_back(static_cast<unsigned>(ws.size()));
    wait_at_gate();
    if (!fail_batches_with.is_ok()) {  // a device fault after the first witness
      if (auto w = ws.wait(0); !w) return w.error();
      return fail_batches_with;
    }
    std::vector<any_proof> out;
    for (std::size_t q = 0; q < ws.size(); ++q) {
      auto w = ws.wait(q);
      if (!w) return w.error();
      auto p = cpu_.prove(call, **w, c, r);
      if (!p) return p.error();
      out.push_back(std::move(p).value());
    }
    return out;
  }
  std::vector<unsigned> sizes;  // one worker: written by it alone, read after the job ended
  status fail_batches_with = status::ok();  // set before the first job: every batch fails with it
  // With `gated` set before the first job, every call waits for open(); `calls` counts arrivals.
  std::atomic<bool> gated{false};
  std::atomic<unsigned> calls{0};
  void open() {
    if (!opened_once_.exchange(true)) gate_.set_value();
  }

 private:
  void wait_at_gate() {
    ++calls;
    if (gated) opened_.wait();
  }
  std::atomic<bool> opened_once_{false};
  std::promise<void> gate_;
  std::shared_future<void> opened_ = gate_.get_future().share();
  unsigned most_;
  cpu_prover_backend cpu_;
};

TEST(engine_prove, a_backend_that_batches_gets_the_partitions_in_batches_and_the_proofs_come_back_in_order) {
  engine_options o;
  o.spool_dir = temp_dir("batch-spool");
  engine_parts parts;
  auto b = std::make_unique<batching_backend>(3);
  batching_backend* backend = b.get();
  parts.backend = std::move(b);
  auto e = engine::create(o, std::move(parts)).value();
  ASSERT_TRUE(e->register_circuit("small", small_zkey).is_ok());
  job_request req;
  req.circuit = "small";
  constexpr unsigned partitions = 7;
  for (unsigned k = 0; k < partitions; ++k) req.partitions.push_back(witness_input::from_bytes(multiplier_witness(small_wtns, k)));
  const auto r = e->await(e->submit(std::move(req)).value(), 0ms).value();
  ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
  EXPECT_EQ(backend->sizes, (std::vector<unsigned>{3, 3, 1}));  // the last one alone: nothing to batch
  ASSERT_EQ(r.proofs.size(), partitions);
  for (unsigned k = 0; k < partitions; ++k)
    expect_valid_proof<bn254>(r.proofs[k], data_dir + "/snarkjs/bn128/verification_key.json", multiplier_public(k));
  EXPECT_EQ(e->snapshot().counters.total.partitions_proved, partitions);
}

// A batch of six witness files by path, some of which change after the submit (each becomes a link
// out of witness_dirs), proven on a batching backend of one worker (failing every batch with
// `backend_error` where it is set, after the first witness). A first job holds the worker at the
// backend's gate while the files change. Returns the batch job's result.
job_result batch_whose_files_change(const std::string& name, std::initializer_list<const char*> changed,
                                    status backend_error = status::ok()) {
  namespace fs = std::filesystem;
  const std::string dir = temp_dir(name);
  const std::string outside = temp_dir(name + "-outside");
  fs::copy_file(small_wtns, outside + "/secret.wtns");
  engine_options o;
  o.spool_dir = temp_dir(name + "-spool");
  o.witness_dirs = {dir};
  engine_parts parts;
  auto b = std::make_unique<batching_backend>(6);
  batching_backend* backend = b.get();
  backend->gated = true;
  backend->fail_batches_with = std::move(backend_error);
  parts.backend = std::move(b);
  auto e = engine::create(o, std::move(parts)).value();
  // Opens the gate before the engine goes, should an assertion below return early.
  const std::unique_ptr<batching_backend, void (*)(batching_backend*)> opener(backend,
                                                                              [](batching_backend* gated) { gated->open(); });
  EXPECT_TRUE(e->register_circuit("small", small_zkey).is_ok());
  job_request first;  // holds the only worker at the gate while the batch's files change
  first.circuit = "small";
  first.partitions.push_back(witness_input::from_bytes(multiplier_witness(small_wtns, 0)));
  const job_id held = e->submit(std::move(first)).value();
  for (int i = 0; i < 2000 && backend->calls == 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(backend->calls, 1u);
  job_request batch;
  batch.circuit = "small";
  for (unsigned k = 0; k < 6; ++k) {
    const std::string path = dir + "/p" + std::to_string(k) + ".wtns";
    fs::copy_file(small_wtns, path);
    batch.partitions.push_back(witness_input::from_path(path));
  }
  const job_id bad = e->submit(std::move(batch)).value();
  for (const char* file : changed) {
    fs::remove(dir + file);
    fs::create_symlink(outside + "/secret.wtns", dir + file);
  }
  backend->open();
  EXPECT_EQ(e->await(held, 20s).value().state, job_state::done);
  return e->await(bad, 20s).value();
}

// A batch's witness files are read a few at once. Of two that changed after the submit, the job
// names the first in partition order, whichever read ended first.
TEST(engine_prove, of_two_witnesses_of_a_batch_that_fail_their_read_the_job_names_the_first) {
  const auto r = batch_whose_files_change("batch-reads", {"/p4.wtns", "/p2.wtns"});
  EXPECT_EQ(r.state, job_state::failed);
  EXPECT_NE(r.error.message().find("partition 2"), std::string::npos) << r.error.to_string();
  EXPECT_EQ(r.error.message().find("partition 4"), std::string::npos) << r.error.to_string();
  EXPECT_NE(r.error.message().find("witness_dirs"), std::string::npos) << r.error.to_string();
}

// A batch the backend gives up on for a reason of its own, before it asks for a witness whose read
// fails (one that changed after the submit): the job fails with the backend's error, not the read's.
TEST(engine_prove, a_batch_the_backend_fails_reports_the_backends_error_not_a_later_failed_read) {
  const auto r = batch_whose_files_change("batch-fault", {"/p4.wtns"}, status(errc::cuda_error, "device fault"));
  EXPECT_EQ(r.state, job_state::failed);
  EXPECT_EQ(r.error.code(), errc::cuda_error) << r.error.to_string();
  EXPECT_NE(r.error.message().find("device fault"), std::string::npos) << r.error.to_string();
  EXPECT_EQ(r.error.message().find("partition 4"), std::string::npos) << r.error.to_string();
}

// Returns a valid-looking but wrong proof: the engine's verification must catch it.
class wrong_backend final : public prover_backend {
 public:
  const char* name() const noexcept override { return "wrong"; }
  result<any_proof> prove(const prove_call&, const any_witness&, const cancel_token&,
                          prove_report&) override {
    return any_proof(formats::proof<bn254>{bn254_g1::generator, bn254_g2::generator, bn254_g1::generator});
  }
};

TEST(engine_prove, a_proof_that_does_not_verify_fails_the_job) {
  engine_options o;
  o.spool_dir = temp_dir("wrong-spool");
  engine_parts parts;
  parts.backend = std::make_unique<wrong_backend>();
  auto e = engine::create(o, std::move(parts)).value();
  ASSERT_TRUE(e->register_circuit("small", small_zkey).is_ok());
  const auto r = e->await(e->submit(request("small")).value(), 0ms).value();
  EXPECT_EQ(r.state, job_state::failed);
  EXPECT_NE(r.error.message().find("did not verify"), std::string::npos) << r.error.to_string();
  EXPECT_TRUE(r.proofs.empty());
}

}  // namespace
}  // namespace cuzk::engine
