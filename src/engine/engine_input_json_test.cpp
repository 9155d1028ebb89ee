// SPDX-License-Identifier: MIT OR Apache-2.0
// Jobs given as circom input JSON, end to end with the real CPU prover: a circuit registered with
// its witness generator (the witness tests' circuits and wasm, with a development key made here
// from their .r1cs), proofs that verify and carry the public signals snarkjs's witness gives, a
// failed assert or a missing signal failing that job with circom's message while the next job
// proves, what submit refuses at once, and the generator coming back after a restart (and, on the
// PostgreSQL store, a queued input JSON job with it). Skipped where wasm2c is not installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "base/poll_until.hpp"
#include "engine/engine.hpp"
#include "engine/engine_test_util.hpp"
#include "engine/jobs/pg_job_store.hpp"
#include "engine/jobs/pg_test_cluster.hpp"
#include "formats/r1cs.hpp"
#include "groth16/circuit_io.hpp"
#include "groth16/setup.hpp"
#include "witness/wasm_compiler.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using namespace cuzk::engine::test;

const std::string witness_data = data_dir + "/witness";
const std::string matrix_wasm = witness_data + "/bn128/matrix.wasm";
const std::string range_wasm = witness_data + "/bn128/range_check.wasm";
// walk(x) ends for an even x and runs on for an odd one (tests/data/witness/README.md).
const std::string never_ending_wasm = witness_data + "/bn128/never_ending.wasm";

struct dev_key {
  std::string zkey, vk;
};

// A development key for a witness test circuit's .r1cs (BN254), made once per test binary.
const dev_key& key_of(const std::string& circuit) {
  static std::map<std::string, dev_key> made;
  auto it = made.find(circuit);
  if (it != made.end()) return it->second;
  static const std::string dir = temp_dir("input-json-keys");
  dev_key k{dir + "/" + circuit + ".zkey", dir + "/" + circuit + "_vk.json"};
  auto r1cs = formats::r1cs::open(witness_data + "/bn128/" + circuit + ".r1cs");
  EXPECT_TRUE(r1cs) << r1cs.error().to_string();
  auto cs = groth16::constraint_system_of<bn254>(*r1cs);
  EXPECT_TRUE(cs) << cs.error().to_string();
  auto dk = groth16::development_setup<bn254>(*cs);
  EXPECT_TRUE(dk) << dk.error().to_string();
  EXPECT_TRUE(formats::write_zkey<bn254>(k.zkey, dk->key).is_ok());
  EXPECT_TRUE(formats::write_verification_key_json<bn254>(k.vk, dk->vk).is_ok());
  return made.emplace(circuit, k).first->second;
}

job_request input_request(const std::string& circuit, const std::string& json) {
  job_request r;
  r.circuit = circuit;
  r.partitions.push_back(witness_input::from_input_json(json));
  return r;
}

std::string file_text(const std::string& path) {
  auto b = read_bytes(path);
  return std::string(b.begin(), b.end());
}

class engine_input_json : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v wasm2c >/dev/null 2>&1") != 0)
      GTEST_SKIP() << "wasm2c not installed (apt-get install wabt)";
  }
  // One witness cache for the binary: each circuit's wasm is compiled once.
  std::unique_ptr<engine> make(std::string store_path = {}) {
    engine_options o;
    o.store_path = std::move(store_path);
    if (o.store_path.empty()) o.spool_dir = temp_dir("input-json-spool");
    return make(std::move(o));
  }
  std::unique_ptr<engine> make(engine_options o, engine_parts parts = {}) {
    o.witness_cache_dir = cache();
    auto e = engine::create(std::move(o), std::move(parts));
    EXPECT_TRUE(e.is_ok()) << e.error().to_string();
    return std::move(e).value();
  }
  static const std::string& cache() {
    static const std::string dir = temp_dir("input-json-cache");
    return dir;
  }
  // The circuit's generator as the engine loads it (from the same cache), for what a calculation
  // of it reserves (jobs/calculation_room.hpp).
  static uint64_t calculation_bytes(const std::string& wasm, const std::string& input) {
    const auto code = read_bytes(wasm);
    auto lib = witness::compile_witness_generator(code, wasm, cache());
    EXPECT_TRUE(lib.is_ok()) << lib.error().to_string();
    auto gen = witness::witness_generator::load(lib->library, wasm);
    EXPECT_TRUE(gen.is_ok()) << gen.error().to_string();
    return calculation_estimate(**gen, input.size()).calculation;
  }
  // What one proof of the key holds in host memory (prover_backend's default, the CPU prover's and
  // the gated backend's).
  static uint64_t proof_bytes(const std::string& zkey) {
    const auto k = read_key_summary(zkey).value();
    return (uint64_t{k.n_vars} + 4 * uint64_t{k.domain_size}) * 32;
  }
  // What the host budget holds once it holds still (no worker busy, nothing changing for a while).
  static uint64_t idle_used(engine& e) {
    uint64_t last = e.snapshot().memory_budgets.front().used;
    for (int i = 0, still = 0; i < 500 && still < 5; ++i) {
      std::this_thread::sleep_for(20ms);
      const auto s = e.snapshot();
      const uint64_t now = s.memory_budgets.front().used;
      const bool busy = std::any_of(s.workers.begin(), s.workers.end(), [](const auto& w) { return w.busy; });
      still = now == last && !busy ? still + 1 : 0;
      last = now;
    }
    return last;
  }
  static uint64_t used(engine& e) { return e.snapshot().memory_budgets.front().used; }
};

TEST_F(engine_input_json, proves_from_input_json_with_the_witness_snarkjs_computes) {
  auto e = make();
  const auto& key = key_of("matrix");
  ASSERT_TRUE(e->register_circuit("matrix", key.zkey, priority::normal, key_change::refuse, matrix_wasm).is_ok());
  EXPECT_EQ(e->list_circuits().at(0).wasm_path, matrix_wasm);

  const job_id from_input = e->submit(input_request("matrix", file_text(witness_data + "/circuits/matrix.input.json"))).value();
  const auto r = e->await(from_input, 0ms).value();
  ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
  // snarkjs's witness of the same input, sent as a .wtns: the same public signals.
  const job_id from_wtns = e->submit(request("matrix", 1, std::nullopt, witness_data + "/bn128/matrix.wtns")).value();
  const auto w = e->await(from_wtns, 0ms).value();
  ASSERT_EQ(w.state, job_state::done) << w.error.to_string();
  expect_valid_proof<bn254>(r.proofs.at(0), key.vk, w.proofs.at(0).public_json);
}

TEST_F(engine_input_json, a_failed_assert_or_a_missing_signal_fails_that_job_and_the_next_proves) {
  auto e = make();
  const auto& range = key_of("range_check");
  ASSERT_TRUE(e->register_circuit("range", range.zkey, priority::normal, key_change::refuse, range_wasm).is_ok());
  const auto bad = e->await(e->submit(input_request("range", R"({"x": 100})")).value(), 0ms).value();
  ASSERT_EQ(bad.state, job_state::failed);
  EXPECT_NE(bad.error.message().find("Assert Failed.\nError in template Bounded_0 line: 9\n"
                                     "Error in template RangeCheck_1 line: 17"),
            std::string::npos)
      << bad.error.message();
  EXPECT_EQ(bad.error.message().rfind("partition 0: " + range_wasm + ": the circuit's witness code failed", 0), 0u)
      << bad.error.message();
  EXPECT_EQ(bad.error.message().find(".spool"), std::string::npos) << "the spool's path leaked: " << bad.error.message();

  const auto good = e->await(e->submit(input_request("range", R"({"x": "5"})")).value(), 0ms).value();
  ASSERT_EQ(good.state, job_state::done) << good.error.to_string();
  expect_valid_proof<bn254>(good.proofs.at(0), range.vk, good.proofs.at(0).public_json);

  const auto& matrix = key_of("matrix");
  ASSERT_TRUE(e->register_circuit("matrix", matrix.zkey, priority::normal, key_change::refuse, matrix_wasm).is_ok());
  const auto missing = e->await(e->submit(input_request("matrix", R"({"m": [[1,2,3],[4,5,6]], "x": [1,2,3]})")).value(), 0ms).value();
  ASSERT_EQ(missing.state, job_state::failed);
  EXPECT_EQ(missing.error.code(), errc::failed_precondition) << missing.error.to_string();
  EXPECT_NE(missing.error.message().find("partition 0: input JSON: not all inputs are given"), std::string::npos)
      << missing.error.message();
  const auto again = e->await(e->submit(input_request("matrix", file_text(witness_data + "/circuits/matrix.input.json"))).value(), 0ms).value();
  EXPECT_EQ(again.state, job_state::done) << again.error.to_string();
}

// Witness code that never ends: the job fails at witness_time_limit_s, and a second worker proves
// other jobs meanwhile (nothing is locked behind the calculation).
TEST_F(engine_input_json, witness_code_that_never_ends_fails_at_its_time_limit_while_others_prove) {
  engine_options o;
  o.spool_dir = temp_dir("input-json-spool");
  o.workers = 2;
  o.witness_time_limit = 6s;  // far more than the three small proofs below take
  auto e = make(std::move(o));
  const auto& walk = key_of("never_ending");
  const auto& range = key_of("range_check");
  ASSERT_TRUE(e->register_circuit("walk", walk.zkey, priority::normal, key_change::refuse, never_ending_wasm).is_ok());
  ASSERT_TRUE(e->register_circuit("range", range.zkey, priority::normal, key_change::refuse, range_wasm).is_ok());
  const auto start = steady_clock::now();
  const job_id hung = e->submit(input_request("walk", R"({"x": "3"})")).value();
  for (int i = 0; i < 3; ++i) {
    const auto other = e->await(e->submit(input_request("range", R"({"x": "5"})")).value(), 0ms).value();
    EXPECT_EQ(other.state, job_state::done) << other.error.to_string();
  }
  EXPECT_EQ(e->get(hung).value().state, job_state::synthesizing) << "the odd input's witness ended";
  const auto r = e->await(hung, 0ms).value();
  const auto took = steady_clock::now() - start;
  ASSERT_EQ(r.state, job_state::failed);
  EXPECT_EQ(r.error.code(), errc::deadline_exceeded) << r.error.to_string();
  EXPECT_NE(r.error.message().find("the witness calculation ran past its time limit and was stopped"), std::string::npos)
      << r.error.message();
  EXPECT_NE(r.error.message().find("(witness_time_limit_s = 6)"), std::string::npos) << r.error.message();
  EXPECT_GE(took, 6s);
  EXPECT_LT(took, 30s);
  // The worker goes on: an even input of the same circuit proves.
  const auto even = e->await(e->submit(input_request("walk", R"({"x": "8"})")).value(), 0ms).value();
  ASSERT_EQ(even.state, job_state::done) << even.error.to_string();
  expect_valid_proof<bn254>(even.proofs.at(0), walk.vk, even.proofs.at(0).public_json);
}

TEST_F(engine_input_json, cancel_stops_witness_code_that_never_ends_at_once) {
  auto e = make();
  const auto& walk = key_of("never_ending");
  ASSERT_TRUE(e->register_circuit("walk", walk.zkey, priority::normal, key_change::refuse, never_ending_wasm).is_ok());
  const job_id hung = e->submit(input_request("walk", R"({"x": "3"})")).value();
  for (int i = 0; i < 200 && e->get(hung).value().state != job_state::synthesizing; ++i) std::this_thread::sleep_for(20ms);
  ASSERT_EQ(e->get(hung).value().state, job_state::synthesizing);
  std::this_thread::sleep_for(200ms);  // well inside the calculation
  const auto asked = steady_clock::now();
  ASSERT_TRUE(e->cancel(hung).is_ok());
  const auto r = e->await(hung, 0ms).value();
  EXPECT_EQ(r.state, job_state::cancelled) << r.error.to_string();
  EXPECT_LT(steady_clock::now() - asked, 5s);
}

// A drain (SIGTERM) stops the calculation and puts the job back in the store; the next start
// listens at once (its submit works) and fails the job at its time limit.
TEST_F(engine_input_json, a_drain_stops_witness_code_that_never_ends_and_the_next_start_fails_it) {
  const std::string store = temp_dir("input-json-hang-store") + "/jobs.db";
  const auto& walk = key_of("never_ending");
  job_id hung = 0;
  {
    auto e = make(store);
    ASSERT_TRUE(e->register_circuit("walk", walk.zkey, priority::normal, key_change::refuse, never_ending_wasm).is_ok());
    hung = e->submit(input_request("walk", R"({"x": "3"})")).value();
    for (int i = 0; i < 200 && e->get(hung).value().state != job_state::synthesizing; ++i) std::this_thread::sleep_for(20ms);
    ASSERT_EQ(e->get(hung).value().state, job_state::synthesizing);
    const auto asked = steady_clock::now();
    e->drain(100ms);
    EXPECT_LT(steady_clock::now() - asked, 5s) << "the drain waited on the calculation";
  }
  engine_options o;
  o.store_path = store;
  o.witness_time_limit = 1s;
  auto e = make(std::move(o));
  const auto even = e->submit(input_request("walk", R"({"x": "2"})"));
  ASSERT_TRUE(even.is_ok()) << even.error().to_string();
  const auto r = e->await(hung, 0ms).value();
  ASSERT_EQ(r.state, job_state::failed);
  EXPECT_EQ(r.error.code(), errc::deadline_exceeded) << r.error.to_string();
  EXPECT_EQ(e->await(*even, 0ms).value().state, job_state::done);
}

// While the worker proves one job, the witness threads compute the next jobs' witnesses, and the
// worker takes them made: the span of each is on the queue's row, before the job was dispatched.
// A queued job cancelled with its witness made frees that witness's memory.
TEST_F(engine_input_json, the_witnesses_of_queued_jobs_are_computed_while_the_worker_proves) {
  engine_options o;
  o.spool_dir = temp_dir("input-json-spool");
  o.witness_threads = 2;
  o.verify_proofs = false;  // the gated backend's proof is a constant
  engine_parts parts;
  auto backend = std::make_unique<gated_backend>(0ms, true);
  gated_backend& gate = *backend;
  parts.backend = std::move(backend);
  auto e = make(std::move(o), std::move(parts));
  const auto& key = key_of("matrix");
  ASSERT_TRUE(e->register_circuit("matrix", key.zkey, priority::normal, key_change::refuse, matrix_wasm).is_ok());
  const std::string input = file_text(witness_data + "/circuits/matrix.input.json");
  const uint64_t witness_bytes = uint64_t{read_key_summary(key.zkey).value().n_vars} * 32;
  // What the host budget holds once it holds still: a worker returns its batch's working set just
  // after await() sees the batch's last job end.
  auto idle_used = [&] {
    uint64_t last = e->snapshot().memory_budgets.front().used;
    for (int i = 0; i < 100; ++i) {
      std::this_thread::sleep_for(20ms);
      const uint64_t now = e->snapshot().memory_budgets.front().used;
      if (now == last && !e->snapshot().workers.at(0).busy) break;
      last = now;
    }
    return last;
  };
  // A first job loads the key; what the host budget holds then is the key's.
  ASSERT_EQ(e->await(e->submit(input_request("matrix", input)).value(), 0ms).value().state, job_state::done);
  const uint64_t idle = idle_used();
  const auto before = e->snapshot().witnesses_ahead;
  gate.close();

  std::vector<job_id> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(e->submit(input_request("matrix", input)).value());
  ASSERT_TRUE(gate.wait_calls(2)) << "the first job reaches the prover";
  for (int i = 0; i < 500 && e->snapshot().witnesses_ahead.ready < 3; ++i) std::this_thread::sleep_for(10ms);
  auto ahead = e->snapshot().witnesses_ahead;
  EXPECT_EQ(ahead.threads, 2u);
  ASSERT_EQ(ahead.ready, 3u) << "the three queued jobs' witnesses, made while the first proves";
  const auto& host = e->snapshot().memory_budgets.front();
  const uint64_t with_three = host.used;
  ASSERT_TRUE(e->cancel(ids[3]).is_ok());
  EXPECT_EQ(e->snapshot().witnesses_ahead.ready, 2u);
  EXPECT_EQ(e->snapshot().memory_budgets.front().used, with_three - witness_bytes)
      << "the cancelled job's witness is freed";

  gate.open();
  for (int i = 0; i < 3; ++i) {
    const auto r = e->await(ids[i], 0ms).value();
    ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
    EXPECT_GT(r.times[phase::witness], 0) << "the witness phase counts the calculation, wherever it ran";
  }
  ahead = e->snapshot().witnesses_ahead;
  EXPECT_GE(ahead.taken_ready - before.taken_ready, 2u);
  EXPECT_EQ(ahead.ready, 0u);
  // Jobs 2 and 3: their witness span ended on the queue's row (-1) before a worker took them.
  const auto events = e->recent_events();
  for (int i = 1; i < 3; ++i) {
    int64_t witness_end = 0, dispatched = 0;
    for (const auto& ev : events) {
      if (ev.job != ids[i]) continue;
      if (ev.kind == event_kind::witness_end) {
        EXPECT_EQ(ev.worker, -1) << "job " << ids[i] << "'s witness was computed by its worker";
        witness_end = ev.unix_us;
      }
      if (ev.kind == event_kind::dispatched) dispatched = ev.unix_us;
    }
    EXPECT_GT(witness_end, 0);
    EXPECT_LT(witness_end, dispatched);
  }
  EXPECT_EQ(idle_used(), idle) << "nothing computed ahead is left held";
}

// A witness calculation's working memory is in the host budget while it runs, reserved with its
// job's working set at admission, and goes back when the calculation ends, whether it ended in a
// witness (before the proof: the proof's own memory is the working set's), a failed assert, a
// cancel or the time limit. Nothing is left held at the end.
TEST_F(engine_input_json, a_calculations_memory_is_in_the_host_budget_while_it_runs_and_only_then) {
  engine_options o;
  o.spool_dir = temp_dir("input-json-spool");
  o.witness_threads = 0;  // every calculation on the worker, where the test can see it
  o.witness_time_limit = 2s;
  engine_parts parts;
  auto backend = std::make_unique<gated_backend>(0ms, true);
  gated_backend& gate = *backend;
  parts.backend = std::move(backend);
  o.verify_proofs = false;  // the gated backend's proof is a constant
  auto e = make(std::move(o), std::move(parts));
  const auto& walk = key_of("never_ending");
  const auto& range = key_of("range_check");
  ASSERT_TRUE(e->register_circuit("walk", walk.zkey, priority::normal, key_change::refuse, never_ending_wasm).is_ok());
  ASSERT_TRUE(e->register_circuit("range", range.zkey, priority::normal, key_change::refuse, range_wasm).is_ok());
  // The keys loaded and the graphs recorded (beside the first jobs: their memory back once done).
  ASSERT_EQ(e->await(e->submit(input_request("walk", R"({"x": "8"})")).value(), 0ms).value().state, job_state::done);
  ASSERT_EQ(e->await(e->submit(input_request("range", R"({"x": "5"})")).value(), 0ms).value().state, job_state::done);
  const uint64_t idle = idle_used(*e);

  // While it runs: the job's working set and its calculation's memory, the estimate of a replay
  // (or the wasm it falls back to, which an odd x does).
  const std::string odd = R"({"x": "3"})";
  const job_id hung = e->submit(input_request("walk", odd)).value();
  for (int i = 0; i < 200 && e->get(hung).value().state != job_state::synthesizing; ++i) std::this_thread::sleep_for(20ms);
  ASSERT_EQ(e->get(hung).value().state, job_state::synthesizing);
  const uint64_t calculation = calculation_bytes(never_ending_wasm, odd);
  EXPECT_GT(calculation, uint64_t{16} << 20) << "the wasm's linear memory, with room for its stack";
  // Until the worker's calculation has its room (the state turns to synthesizing just before).
  const uint64_t running = idle + proof_bytes(walk.zkey) + calculation;
  EXPECT_TRUE(poll_until([&] { return used(*e) == running; }, 10s)) << used(*e) << " held, not " << running;
  ASSERT_TRUE(e->cancel(hung).is_ok());
  EXPECT_EQ(e->await(hung, 0ms).value().state, job_state::cancelled);
  EXPECT_EQ(idle_used(*e), idle) << "after a cancel";

  const auto timed_out = e->await(e->submit(input_request("walk", R"({"x": "5"})")).value(), 0ms).value();
  EXPECT_EQ(timed_out.error.code(), errc::deadline_exceeded) << timed_out.error.to_string();
  EXPECT_EQ(idle_used(*e), idle) << "after the time limit";

  const auto failed = e->await(e->submit(input_request("range", R"({"x": 100})")).value(), 0ms).value();
  EXPECT_NE(failed.error.message().find("Assert Failed."), std::string::npos) << failed.error.to_string();
  EXPECT_EQ(idle_used(*e), idle) << "after a failed assert";

  // A witness made: its calculation's memory goes back before the proof, which holds the working
  // set alone.
  gate.close();
  const job_id proving = e->submit(input_request("walk", R"({"x": "6"})")).value();
  ASSERT_TRUE(gate.wait_calls(3));
  EXPECT_EQ(used(*e), idle + proof_bytes(walk.zkey)) << "during the proof";
  gate.open();
  EXPECT_EQ(e->await(proving, 0ms).value().state, job_state::done);
  EXPECT_EQ(idle_used(*e), idle) << "after the proof";
}

// A host budget that holds the key and the proof but not the calculation fails the job at
// admission, naming the circuit, the bytes and the budget's limit; a .wtns of the same key proves.
TEST_F(engine_input_json, a_host_budget_too_small_for_the_calculation_fails_the_job_saying_so) {
  engine_options o;
  o.spool_dir = temp_dir("input-json-spool");
  o.host_memory_budget = uint64_t{10} << 20;
  auto e = make(std::move(o));
  const auto& key = key_of("matrix");
  ASSERT_TRUE(e->register_circuit("matrix", key.zkey, priority::normal, key_change::refuse, matrix_wasm).is_ok());
  const auto by_file = e->await(e->submit(request("matrix", 1, std::nullopt, witness_data + "/bn128/matrix.wtns")).value(), 0ms).value();
  ASSERT_EQ(by_file.state, job_state::done) << by_file.error.to_string();

  const std::string input = file_text(witness_data + "/circuits/matrix.input.json");
  const uint64_t calculation = calculation_bytes(matrix_wasm, input);
  ASSERT_GT(calculation, uint64_t{10} << 20);
  const auto r = e->await(e->submit(input_request("matrix", input)).value(), 0ms).value();
  ASSERT_EQ(r.state, job_state::failed);
  EXPECT_EQ(r.error.code(), errc::resource_exhausted) << r.error.to_string();
  const std::string& m = r.error.message();
  EXPECT_NE(m.find("with " + describe_bytes(calculation) + " for a witness calculation of circuit matrix"), std::string::npos) << m;
  EXPECT_NE(m.find("is larger than the whole budget (limit " + describe_bytes(uint64_t{10} << 20) + ")"), std::string::npos) << m;
  EXPECT_TRUE(m.starts_with("admission: memory budget \"host\": a request of " +
                            describe_bytes(proof_bytes(key.zkey) + calculation)))
      << m;
}

// The witness threads take memory only from spare room: while a job proves, a queued job whose
// calculation would not fit beside it is not computed ahead (its worker computes it once its turn
// comes, and what the threads hold gives way to its admission).
TEST_F(engine_input_json, the_witness_threads_start_no_calculation_the_spare_room_cannot_hold) {
  const auto& key = key_of("matrix");
  const std::string input = file_text(witness_data + "/circuits/matrix.input.json");
  // What the key holds once loaded, learnt from an engine of its own.
  uint64_t key_held = 0;
  {
    auto probe = make();
    ASSERT_TRUE(probe->register_circuit("matrix", key.zkey, priority::normal, key_change::refuse, matrix_wasm).is_ok());
    const status loaded = probe->preload("matrix", key_tier::warm);
    ASSERT_TRUE(loaded.is_ok()) << loaded.to_string();
    key_held = idle_used(*probe);
    ASSERT_GT(key_held, 0u);
  }
  const uint64_t proof = proof_bytes(key.zkey), calculation = calculation_bytes(matrix_wasm, input);
  const uint64_t witness = uint64_t{read_key_summary(key.zkey).value().n_vars} * 32;
  engine_options o;
  o.spool_dir = temp_dir("input-json-spool");
  o.witness_threads = 2;
  // Room for the key, a proof and a calculation (a job's admission), and beside a proof for less
  // than a witness and a calculation (what the threads would take).
  o.host_memory_budget = key_held + proof + calculation + witness / 2;
  o.verify_proofs = false;
  engine_parts parts;
  auto backend = std::make_unique<gated_backend>(0ms, false);
  gated_backend& gate = *backend;
  parts.backend = std::move(backend);
  auto e = make(std::move(o), std::move(parts));
  ASSERT_TRUE(e->register_circuit("matrix", key.zkey, priority::normal, key_change::refuse, matrix_wasm).is_ok());
  ASSERT_TRUE(e->preload("matrix", key_tier::warm).is_ok());
  ASSERT_EQ(idle_used(*e), key_held);

  const job_id by_file = e->submit(request("matrix", 1, std::nullopt, witness_data + "/bn128/matrix.wtns")).value();
  ASSERT_TRUE(gate.wait_calls(1));
  const job_id queued = e->submit(input_request("matrix", input)).value();
  std::this_thread::sleep_for(400ms);  // the threads look four times
  const auto ahead = e->snapshot().witnesses_ahead;
  EXPECT_EQ(ahead.computing + ahead.ready + ahead.computed, 0u) << "a calculation started without room for it";
  EXPECT_EQ(used(*e), key_held + proof);
  gate.open();
  EXPECT_EQ(e->await(by_file, 0ms).value().state, job_state::done);
  const auto r = e->await(queued, 0ms).value();
  EXPECT_EQ(r.state, job_state::done) << r.error.to_string();
  EXPECT_EQ(idle_used(*e), key_held);
}

// docs/HARDENING.md, finding 28: the wasm of another circuit with the key's prime, wire count and
// public signals passes registration (nothing more is stated by both files); its witnesses do not
// satisfy the key's constraints, and the daemon's check of each proof fails the job saying so.
TEST_F(engine_input_json, the_wasm_of_another_circuit_of_the_keys_size_fails_its_jobs_at_the_proofs_check) {
  auto e = make();
  const auto& key = key_of("mul");
  const std::string mul_add_wasm = witness_data + "/bn128/mul_add.wasm";
  ASSERT_TRUE(
      e->register_circuit("mul", key.zkey, priority::normal, key_change::refuse, mul_add_wasm).is_ok());
  const job_id id = e->submit(input_request("mul", R"({"a": "3", "b": "5"})")).value();
  const auto r = e->await(id, 0ms).value();
  ASSERT_EQ(r.state, job_state::failed);
  EXPECT_EQ(r.error.code(), errc::failed_precondition) << r.error.to_string();
  EXPECT_TRUE(r.error.message().starts_with("partition 0: the proof did not verify (")) << r.error.message();
  EXPECT_NE(r.error.message().find(
                "): most likely the witness that " + mul_add_wasm +
                " computed does not satisfy the key's constraints: is it the wasm of the key's circuit?"),
            std::string::npos)
      << r.error.message();
}

TEST_F(engine_input_json, submit_refuses_what_it_can_tell_at_once) {
  auto e = make();
  const auto& key = key_of("matrix");
  ASSERT_TRUE(e->register_circuit("bare", key.zkey).is_ok());
  auto s = e->submit(input_request("bare", R"({"k": 1})"));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), errc::failed_precondition);
  EXPECT_NE(s.error().message().find("circuit bare has no witness generator: register it with its wasm"), std::string::npos)
      << s.error().message();

  ASSERT_TRUE(e->register_circuit("matrix", key.zkey, priority::normal, key_change::refuse, matrix_wasm).is_ok());
  s = e->submit(input_request("matrix", R"({"k": )"));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), errc::invalid_argument);
  EXPECT_NE(s.error().message().find("partition 0: input JSON"), std::string::npos) << s.error().message();
  s = e->submit(input_request("matrix", R"({"k": true})"));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), errc::invalid_argument);
  // A byte that is not UTF-8, named by its offset (docs/HARDENING.md, finding 27).
  s = e->submit(input_request("matrix", "{\"k\": \"1234567\xff\"}"));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), errc::invalid_argument);
  EXPECT_EQ(s.error().message(), "partition 0: input JSON: not UTF-8 at byte 14");

  // The wasm of another circuit: refused at registration, with the wires it has.
  auto r = e->register_circuit("wrong", key.zkey, priority::normal, key_change::refuse, range_wasm);
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("expected the key's 36 wires, found a circuit of 3"), std::string::npos) << r.message();

  // A file that is not circom's witness code: named, as the client's fault (docs/HARDENING.md,
  // finding 26).
  const std::string junk = temp_dir("input-json-junk") + "/random.wasm";
  {
    std::ofstream f(junk, std::ios::binary);
    for (int i = 0; i < 256; ++i) f.put(static_cast<char>(i * 37 + 11));
  }
  r = e->register_circuit("junk", key.zkey, priority::normal, key_change::refuse, junk);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.code(), errc::invalid_argument);
  EXPECT_EQ(r.message(),
            "circuit junk: " + junk + ": not a WebAssembly module (it does not begin with \\0asm)");
}

TEST_F(engine_input_json, the_generator_is_registered_again_after_a_restart) {
  const std::string store = temp_dir("input-json-store") + "/jobs.db";
  const auto& key = key_of("matrix");
  {
    auto e = make(store);
    ASSERT_TRUE(e->register_circuit("matrix", key.zkey, priority::normal, key_change::refuse, matrix_wasm).is_ok());
  }
  auto e = make(store);
  ASSERT_EQ(e->list_circuits().size(), 1u);
  EXPECT_EQ(e->list_circuits()[0].wasm_path, matrix_wasm);
  const auto r = e->await(e->submit(input_request("matrix", file_text(witness_data + "/circuits/matrix.input.json"))).value(), 0ms).value();
  EXPECT_EQ(r.state, job_state::done) << r.error.to_string();
}

// The same on the PostgreSQL store (schema version 4): what a daemon killed after a submit leaves
// there, the circuit with its wasm and a queued job whose one partition is spooled input JSON, is
// taken up by the next daemon as input JSON, its witness computed from the wasm.
TEST_F(engine_input_json, a_queued_input_json_job_in_postgresql_resumes_as_input_json) {
  pg_test_cluster* cluster = pg_test_cluster::shared();
  if (!cluster) GTEST_SKIP() << pg_test_cluster::unavailable_reason();
  const auto db = cluster->fresh_database("input-json");
  ASSERT_TRUE(db.is_ok()) << db.error().to_string();
  const auto& key = key_of("matrix");
  const std::string spool = temp_dir("input-json-pg-spool");
  const std::string input = spool + "/1.json";
  std::filesystem::copy_file(witness_data + "/circuits/matrix.input.json", input);
  job_id queued = 0;
  {
    auto s = pg_job_store::open(*db);
    ASSERT_TRUE(s.is_ok()) << s.error().to_string();
    ASSERT_TRUE((*s)->put_circuit({"matrix", key.zkey, priority::normal, matrix_wasm, ""}).is_ok());
    job_record r;
    r.info.circuit = "matrix";
    r.info.partitions = 1;
    r.info.submitted_at = wall_clock::now();
    r.witness_paths = {input};
    r.spooled = {true};
    r.input_json = {true};
    queued = (*s)->insert(r).value().id;
  }
  engine_options o;
  o.database = *db;
  o.spool_dir = spool;
  auto e = make(std::move(o));
  ASSERT_TRUE(e);
  ASSERT_EQ(e->list_circuits().size(), 1u);
  EXPECT_EQ(e->list_circuits()[0].wasm_path, matrix_wasm);
  const auto r = e->await(queued, 60s).value();
  ASSERT_EQ(r.state, job_state::done) << r.error.to_string();
  const auto w = e->await(e->submit(request("matrix", 1, std::nullopt, witness_data + "/bn128/matrix.wtns")).value(), 0ms).value();
  ASSERT_EQ(w.state, job_state::done) << w.error.to_string();
  expect_valid_proof<bn254>(r.proofs.at(0), key.vk, w.proofs.at(0).public_json);
}

}  // namespace
}  // namespace cuzk::engine
