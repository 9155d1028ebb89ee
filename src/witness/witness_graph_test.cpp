// SPDX-License-Identifier: MIT OR Apache-2.0
// The witness graph (witness_graph.hpp, graph_recorder.hpp) against the wasm it was recorded from:
// the first calculation records it, later ones replay it, and every witness is the wasm's to the
// byte, on fresh random inputs, on both curves. Inputs that take another path through the witness
// code (a branch, a loop count, an array index, an assert that fails) fall back to the wasm; a
// graph file that fails its checks is never used; witness code that logs gets no graph. Skipped
// where wasm2c is not installed (scripts/setup.sh installs wabt).
#include "witness/witness_graph.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>

#include "formats/file_io.hpp"
#include "witness/circom_wasm.hpp"
#include "witness/wasm_compiler.hpp"

namespace cuzk::witness {
namespace {

namespace fs = std::filesystem;

const std::string data_dir = CUZK_TEST_DATA_DIR "/witness";

bool have_wasm2c() { return std::system("command -v wasm2c >/dev/null 2>&1") == 0; }

class WitnessGraph : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (!have_wasm2c()) GTEST_SKIP() << "wasm2c not installed (apt-get install wabt)";
    // A cache of its own per test: each test records its graph from scratch.
    static int tests = 0;
    cache_ = (fs::temp_directory_path() / ("cuzk-graph-test-" + std::to_string(::getpid()) + "-" + std::to_string(++tests)))
                 .string();
    std::random_device rd;
    seed_ = (uint64_t{rd()} << 32) | rd();
    rng_.seed(seed_);
    RecordProperty("seed", std::to_string(seed_));
  }
  void TearDown() override {
    std::error_code ec;
    if (!cache_.empty()) fs::remove_all(cache_, ec);
  }

  std::string wasm_of(const std::string& circuit) const { return data_dir + "/" + GetParam() + "/" + circuit + ".wasm"; }

  std::shared_ptr<const witness_generator> load(const std::string& circuit) {
    const std::string wasm = wasm_of(circuit);
    std::ifstream in(wasm, std::ios::binary);
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
    auto lib = compile_witness_generator(bytes, wasm, cache_);
    EXPECT_TRUE(lib.is_ok()) << lib.error().message();
    if (!lib) return nullptr;
    library_ = lib->library;
    auto g = witness_generator::load(lib->library, wasm);
    EXPECT_TRUE(g.is_ok()) << g.error().message();
    return g ? *g : nullptr;
  }

  // The circuit's bundled input (tests/data/witness/circuits/<circuit>.input.json), parsed for g.
  result<std::vector<input_signal>> bundled_inputs(const witness_generator& g, const std::string& circuit) {
    auto json = formats::read_text_file(data_dir + "/circuits/" + circuit + ".input.json");
    if (!json) return json.error();
    return parse_circom_input(*json, "input.json", g.prime());
  }

  result<calculated_witness> calculate(const witness_generator& g, const std::string& json, bool graph = true) {
    auto inputs = parse_circom_input(json, "input.json", g.prime());
    if (!inputs) return inputs.error();
    calculation_limits limits;
    limits.graph = graph;
    return g.calculate(*inputs, "input.json", limits);
  }

  // The graph's witness (or the wasm's, where it fell back) against the wasm's alone.
  void expect_same_as_wasm(const witness_generator& g, const std::string& json, bool replayed) {
    auto by_graph = calculate(g, json);
    auto by_wasm = calculate(g, json, false);
    ASSERT_TRUE(by_graph.is_ok()) << json << ": " << by_graph.error().message();
    ASSERT_TRUE(by_wasm.is_ok()) << json << ": " << by_wasm.error().message();
    EXPECT_FALSE(by_wasm->by_graph);
    EXPECT_EQ(by_graph->by_graph, replayed) << json << " (seed " << seed_ << ")";
    EXPECT_EQ(by_graph->wtns, by_wasm->wtns) << json << " (seed " << seed_ << ")";
    EXPECT_EQ(by_graph->log, by_wasm->log);
  }

  // The witness of `json` replayed from the graph, and these bytes.
  void expect_replayed(const witness_generator& g, const std::string& json, const std::vector<uint8_t>& wtns) {
    auto w = calculate(g, json);
    ASSERT_TRUE(w.is_ok()) << w.error().message();
    EXPECT_TRUE(w->by_graph);
    EXPECT_EQ(w->wtns, wtns);
  }

  // A decimal number below 2^bits.
  std::string random_below_bits(int bits) {
    std::string digits = "0";
    for (int i = 0; i < bits; ++i) {
      // digits = digits * 2 + bit, in decimal
      int carry = static_cast<int>(rng_() & 1);
      for (std::size_t j = digits.size(); j-- > 0;) {
        const int d = (digits[j] - '0') * 2 + carry;
        digits[j] = static_cast<char>('0' + d % 10);
        carry = d / 10;
      }
      if (carry) digits.insert(digits.begin(), static_cast<char>('0' + carry));
    }
    return digits;
  }
  uint64_t below(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_); }

  std::string graph_ops_input(const std::string& a, const std::string& b, uint64_t n, uint64_t sel) {
    std::string arr;
    for (int i = 0; i < 4; ++i) arr += (i ? ", \"" : "\"") + random_below_bits(200) + "\"";
    return "{\"a\": \"" + a + "\", \"b\": \"" + b + "\", \"n\": \"" + std::to_string(n) + "\", \"sel\": \"" +
           std::to_string(sel) + "\", \"arr\": [" + arr + "]}";
  }

  std::string cache_, library_;
  uint64_t seed_ = 0;
  std::mt19937_64 rng_;
};

TEST_P(WitnessGraph, TheFirstCalculationRecordsItAndItIsSnarkjsBytes) {
  auto g = load("graph_ops");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->graph(), graph_state::none_yet);
  auto json = formats::read_text_file(data_dir + "/circuits/graph_ops.input.json");
  ASSERT_TRUE(json.is_ok());
  auto inputs = parse_circom_input(*json, "input.json", g->prime());
  ASSERT_TRUE(inputs.is_ok());
  calculation_limits limits;
  int replays = 0;
  limits.replay_of_recording = [&](std::span<uint32_t>) { ++replays; };
  auto first = g->calculate(*inputs, "input.json", limits);
  ASSERT_TRUE(first.is_ok()) << first.error().message();
  EXPECT_FALSE(first->by_graph);
  EXPECT_EQ(replays, 1);  // its witness was written by the graph's replay
  ASSERT_EQ(g->graph(), graph_state::ready) << g->graph_reason();
  auto again = calculate(*g, *json);
  ASSERT_TRUE(again.is_ok()) << again.error().message();
  EXPECT_TRUE(again->by_graph);
  EXPECT_EQ(again->wtns, first->wtns);
  // And the bytes snarkjs wrote for this input (tests/data/witness/README.md).
  auto wtns = formats::read_text_file(data_dir + "/" + GetParam() + "/graph_ops.wtns");
  ASSERT_TRUE(wtns.is_ok());
  EXPECT_EQ(*wtns, std::string(again->wtns.begin(), again->wtns.end()));
}

// The recording calculation's witness is the graph's replay, checked against the digest of the
// wasm's: a replay that differs (damaged here, as a wrong graph's would be) refuses the graph for
// good, in this process and the next, and the witness is still the wasm's.
TEST_P(WitnessGraph, ARecordingWhoseReplayIsNotTheWasmsWitnessIsRefused) {
  auto g = load("graph_ops");
  ASSERT_TRUE(g);
  auto inputs = bundled_inputs(*g, "graph_ops");
  ASSERT_TRUE(inputs.is_ok()) << inputs.error().message();
  calculation_limits limits;
  int replays = 0;
  limits.replay_of_recording = [&](std::span<uint32_t> words) {
    ++replays;
    words[words.size() - 1] ^= 1;
  };
  auto first = g->calculate(*inputs, "input.json", limits);
  ASSERT_TRUE(first.is_ok()) << first.error().message();
  EXPECT_EQ(replays, 1);
  EXPECT_FALSE(first->by_graph);
  EXPECT_EQ(g->graph(), graph_state::refused);
  EXPECT_NE(g->graph_reason().find("replay"), std::string::npos) << g->graph_reason();
  auto wtns = formats::read_text_file(data_dir + "/" + GetParam() + "/graph_ops.wtns");
  ASSERT_TRUE(wtns.is_ok());
  EXPECT_EQ(*wtns, std::string(first->wtns.begin(), first->wtns.end()));
  auto again = g->calculate(*inputs, "input.json", limits);
  ASSERT_TRUE(again.is_ok()) << again.error().message();
  EXPECT_EQ(replays, 1);  // no second recording
  EXPECT_EQ(again->wtns, first->wtns);
  auto later = load("graph_ops");
  ASSERT_TRUE(later);
  EXPECT_EQ(later->graph(), graph_state::refused);
}

TEST_P(WitnessGraph, FreshInputsOnTheRecordedPathReplayAndOthersFallBackWithTheSameBytes) {
  auto g = load("graph_ops");
  ASSERT_TRUE(g);
  // Recorded on the path n > 1000, sel = 2, a and b nonzero.
  ASSERT_TRUE(calculate(*g, graph_ops_input(random_below_bits(250), random_below_bits(250), 40000, 2)).is_ok());
  ASSERT_EQ(g->graph(), graph_state::ready) << g->graph_reason();
  for (int i = 0; i < 12; ++i) {
    SCOPED_TRACE("round " + std::to_string(i));
    // The same path: every value fresh, small and large field elements alike.
    expect_same_as_wasm(*g, graph_ops_input(random_below_bits(i % 2 ? 254 : 30), random_below_bits(250), 1001 + below(64535), 2),
                        true);
    // Other paths: the array index, the loop count, the branch, the inverse's test.
    expect_same_as_wasm(*g, graph_ops_input(random_below_bits(250), random_below_bits(250), 1001 + below(60000), below(2)), false);
    expect_same_as_wasm(*g, graph_ops_input(random_below_bits(250), random_below_bits(250), below(1001), 2), false);
    expect_same_as_wasm(*g, graph_ops_input("0", random_below_bits(250), 5000, 2), false);
  }
  // Edges of the field on the recorded path: p - 1 is -1 to circom's comparisons and divisions,
  // 2^253 lies beyond p/2.
  expect_same_as_wasm(*g, graph_ops_input("-1", "1", 1001, 2), true);
  expect_same_as_wasm(*g, graph_ops_input("1", "-1", 65535, 2), true);
  expect_same_as_wasm(*g, graph_ops_input("14474011154664524427946373126085988481658748083205070504932198000989141204992", "-2", 4096, 2), true);
}

TEST_P(WitnessGraph, AFailingAssertOffThePathGivesCircomsMessage) {
  auto g = load("graph_ops");
  ASSERT_TRUE(g);
  ASSERT_TRUE(calculate(*g, graph_ops_input("5", "7", 2000, 2)).is_ok());
  ASSERT_EQ(g->graph(), graph_state::ready);
  auto failed = calculate(*g, graph_ops_input("5", "7", 70000, 2));
  ASSERT_FALSE(failed.is_ok());
  EXPECT_EQ(failed.error().code(), errc::failed_precondition);
  EXPECT_NE(failed.error().message().find("Assert Failed"), std::string::npos) << failed.error().message();
}

TEST_P(WitnessGraph, MatrixReplaysOnRandomInputs) {
  auto g = load("matrix");
  ASSERT_TRUE(g);
  auto json = formats::read_text_file(data_dir + "/circuits/matrix.input.json");
  ASSERT_TRUE(json.is_ok());
  ASSERT_TRUE(calculate(*g, *json).is_ok());
  ASSERT_EQ(g->graph(), graph_state::ready) << g->graph_reason();
  for (int i = 0; i < 8; ++i) {
    std::string m, x, cube;
    for (int j = 0; j < 6; ++j) m += std::string(j ? ", " : "") + (j % 3 == 0 ? "[" : "") + "\"" + random_below_bits(254) + "\"" + (j % 3 == 2 ? "]" : "");
    for (int j = 0; j < 3; ++j) x += std::string(j ? ", " : "") + "\"" + random_below_bits(i * 30) + "\"";
    for (int j = 0; j < 8; ++j) cube += std::string(j ? ", " : "") + "\"" + random_below_bits(j * 32) + "\"";
    m = "[" + m + "]";
    const std::string input = "{\"m\": " + m + ", \"x\": [" + x + "], \"k\": \"" + random_below_bits(100) + "\", \"cube\": [" + cube + "]}";
    expect_same_as_wasm(*g, input, true);
  }
}

TEST_P(WitnessGraph, ALaterProcessUsesTheFileAndRefusesADamagedOne) {
  auto g = load("matrix");
  ASSERT_TRUE(g);
  auto json = formats::read_text_file(data_dir + "/circuits/matrix.input.json");
  ASSERT_TRUE(json.is_ok());
  auto first = calculate(*g, *json);
  ASSERT_TRUE(first.is_ok());
  ASSERT_TRUE(fs::exists(library_ + ".graph"));
  const std::vector<uint32_t> prime = g->prime();
  const uint32_t wires = g->witness_size();
  g.reset();

  auto reloaded = load("matrix");
  ASSERT_TRUE(reloaded);
  EXPECT_EQ(reloaded->graph(), graph_state::ready);
  // The field and the wire count come from the graph's header (no instance is made for them).
  EXPECT_EQ(reloaded->prime(), prime);
  EXPECT_EQ(reloaded->witness_size(), wires);
  expect_replayed(*reloaded, *json, first->wtns);
  // An input the graph does not fit gets the wasm's own answer, its sizes asked of the instance.
  auto part = calculate(*reloaded, R"({"m": [["1", "2", "3"], [4, 5, "6"]]})");
  ASSERT_FALSE(part.is_ok());
  EXPECT_EQ(part.error().code(), errc::failed_precondition);
  EXPECT_NE(part.error().message().find("not all inputs are given: 6 of the circuit's 18 input values"), std::string::npos)
      << part.error().message();
  reloaded.reset();

  // The same file mapped rather than copied (how a command holds it).
  auto lib = witness_generator::load(library_, wasm_of("matrix"), witness_graph::holding::map);
  ASSERT_TRUE(lib.is_ok()) << lib.error().message();
  EXPECT_EQ((*lib)->graph(), graph_state::ready);
  expect_replayed(**lib, *json, first->wtns);
  lib->reset();

  // One byte of the program changed: the digest no longer matches, and the file is not used.
  {
    std::fstream f(library_ + ".graph", std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-3, std::ios::end);
    char c = 0;
    f.get(c);
    f.seekp(-3, std::ios::end);
    f.put(static_cast<char>(c ^ 0x10));
  }
  for (auto how : {witness_graph::holding::copy, witness_graph::holding::map}) {
    auto damaged = witness_graph::load(library_ + ".graph", how);
    ASSERT_FALSE(damaged.is_ok());
    EXPECT_NE(damaged.error().message().find("digest"), std::string::npos) << damaged.error().message();
  }
  auto after = load("matrix");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->graph(), graph_state::none_yet);
  auto computed = calculate(*after, *json);
  ASSERT_TRUE(computed.is_ok());
  EXPECT_FALSE(computed->by_graph);
  EXPECT_EQ(computed->wtns, first->wtns);
  EXPECT_EQ(after->graph(), graph_state::ready);  // recorded again
}

TEST_P(WitnessGraph, WitnessCodeThatLogsGetsNoGraph) {
  auto g = load("logs");
  ASSERT_TRUE(g);
  auto w = calculate(*g, "{\"x\": \"3\"}");
  ASSERT_TRUE(w.is_ok()) << w.error().message();
  EXPECT_EQ(w->log, "x is 3\n");
  EXPECT_EQ(g->graph(), graph_state::refused);
  EXPECT_NE(g->graph_reason().find("logs"), std::string::npos) << g->graph_reason();
  auto again = calculate(*g, "{\"x\": \"4\"}");
  ASSERT_TRUE(again.is_ok());
  EXPECT_FALSE(again->by_graph);
  EXPECT_EQ(again->log, "x is 4\n");
}

TEST_P(WitnessGraph, NeverEndingCodeReplaysWhereItEndedAndStopsAtItsLimitElsewhere) {
  auto g = load("never_ending");
  ASSERT_TRUE(g);
  ASSERT_TRUE(calculate(*g, "{\"x\": \"4\"}").is_ok());
  ASSERT_EQ(g->graph(), graph_state::ready) << g->graph_reason();
  expect_same_as_wasm(*g, "{\"x\": \"4\"}", true);
  expect_same_as_wasm(*g, "{\"x\": \"10\"}", false);  // another loop count
  auto inputs = parse_circom_input("{\"x\": \"5\"}", "input.json", g->prime());
  ASSERT_TRUE(inputs.is_ok());
  calculation_limits limits;
  limits.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  auto stopped = g->calculate(*inputs, "input.json", limits);
  ASSERT_FALSE(stopped.is_ok());
  EXPECT_EQ(stopped.error().code(), errc::deadline_exceeded) << stopped.error().message();
}

TEST_P(WitnessGraph, ARecordingBesideTheCalculationLeavesItAtTheWasmsPace) {
  auto g = load("matrix");
  ASSERT_TRUE(g);
  auto inputs = bundled_inputs(*g, "matrix");
  ASSERT_TRUE(inputs.is_ok()) << inputs.error().message();
  calculation_limits limits;
  limits.graph_recording = calculation_limits::recording::beside;
  auto first = g->calculate(*inputs, "input.json", limits);
  ASSERT_TRUE(first.is_ok()) << first.error().message();
  EXPECT_FALSE(first->by_graph);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (g->graph() != graph_state::ready && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(g->graph(), graph_state::ready) << g->graph_reason();
  auto second = g->calculate(*inputs, "input.json", limits);
  ASSERT_TRUE(second.is_ok());
  EXPECT_TRUE(second->by_graph);
  EXPECT_EQ(second->wtns, first->wtns);
}

TEST_P(WitnessGraph, AGeneratorGoesPromptlyWhileARecordingBesideNeverEnds) {
  auto g = load("never_ending");
  ASSERT_TRUE(g);
  auto inputs = parse_circom_input("{\"x\": \"5\"}", "input.json", g->prime());
  ASSERT_TRUE(inputs.is_ok());
  calculation_limits limits;
  limits.graph_recording = calculation_limits::recording::beside;
  limits.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  auto stopped = g->calculate(*inputs, "input.json", limits);
  ASSERT_FALSE(stopped.is_ok());
  EXPECT_EQ(stopped.error().code(), errc::deadline_exceeded);
  EXPECT_EQ(g->graph(), graph_state::recording);  // its own limit is five times longer
  const auto t0 = std::chrono::steady_clock::now();
  g.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

INSTANTIATE_TEST_SUITE_P(Curves, WitnessGraph, ::testing::Values("bn128", "bls12381"));

// The file's own checks, without a circuit: a program that would read outside its slots or leave a
// wire without a value is refused at load.
TEST(WitnessGraphFile, ChecksRefuseProgramsThatReachOutside) {
  witness_graph g;
  g.prime = {1, 2, 3, 4, 5, 6, 7, 8};
  g.witness_size = 2;
  g.input_values = 1;
  g.inputs = {{42, 1, 0}};
  g.constants = {1, 0, 0, 0, 0, 0, 0, 0};
  g.slots = 2;
  g.program = {{graph_op::output, field_fn{}, 0, 0, 0, 0}, {graph_op::input, field_fn{}, 0, 1, 0, 0},
               {graph_op::output, field_fn{}, 0, 0, 1, 1}};
  ASSERT_TRUE(g.check().is_ok()) << g.check().message();
  const std::string path = (fs::temp_directory_path() / ("cuzk-graph-file-" + std::to_string(::getpid()))).string();
  ASSERT_TRUE(g.save(path).is_ok());
  ASSERT_TRUE(witness_graph::load(path).is_ok());
  auto mapped = witness_graph::load(path, witness_graph::holding::map);
  ASSERT_TRUE(mapped.is_ok()) << mapped.error().message();
  EXPECT_EQ(mapped->instructions().size(), g.program.size());
  EXPECT_EQ(0, std::memcmp(mapped->instructions().data(), g.program.data(), g.program.size() * sizeof(graph_instr)));

  auto bad = g;
  bad.program[1].dst = 2;  // beyond the slots
  EXPECT_FALSE(bad.check().is_ok());
  bad = g;
  bad.program.pop_back();  // wire 1 without a value
  EXPECT_FALSE(bad.check().is_ok());
  bad = g;
  bad.program[1].a = 1;  // an input that does not exist
  EXPECT_FALSE(bad.check().is_ok());
  bad = g;
  bad.program.push_back({graph_op::field_call, static_cast<field_fn>(250), 0, 1, 0, 0});
  EXPECT_FALSE(bad.check().is_ok());

  // A file cut short is refused with its name.
  auto text = formats::read_text_file(path);
  ASSERT_TRUE(text.is_ok());
  ASSERT_TRUE(formats::write_file_atomically(path, text->substr(0, text->size() - 5)).is_ok());
  for (auto how : {witness_graph::holding::copy, witness_graph::holding::map}) {
    auto cut = witness_graph::load(path, how);
    ASSERT_FALSE(cut.is_ok());
    EXPECT_NE(cut.error().message().find(path), std::string::npos);
  }
  std::error_code ec;
  fs::remove(path, ec);
}

}  // namespace
}  // namespace cuzk::witness
