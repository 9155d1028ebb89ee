// SPDX-License-Identifier: MIT OR Apache-2.0
// circom's witness code compiled by wasm2c and run (wasm_compiler.hpp, circom_wasm.hpp), against
// the .wtns files snarkjs made from the same .wasm (tests/data/witness/README.md): the same bytes
// on both curves, circom's message for a failed assert, and the input errors. Skipped where wasm2c
// is not installed (scripts/setup.sh installs wabt).
#include "witness/circom_wasm.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <stop_token>
#include <thread>
#include <fstream>
#include <iterator>
#include <optional>

#include "formats/file_io.hpp"
#include "formats/formats_test_util.hpp"
#include "formats/wtns_writer.hpp"
#include "witness/wasm_compiler.hpp"

namespace cuzk::witness {
namespace {

namespace fs = std::filesystem;

const std::string data_dir = CUZK_TEST_DATA_DIR "/witness";

using formats::testing::read_bytes;

bool have_wasm2c() { return std::system("command -v wasm2c >/dev/null 2>&1") == 0; }

// One cache for the whole test binary: each circuit is compiled once.
const std::string& cache_dir() {
  static const std::string d = (fs::temp_directory_path() / ("cuzk-witness-test-" + std::to_string(::getpid()))).string();
  return d;
}

class CircomWasm : public ::testing::TestWithParam<const char*> {
 protected:
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(cache_dir(), ec);
  }
  void SetUp() override {
    if (!have_wasm2c()) GTEST_SKIP() << "wasm2c not installed (apt-get install wabt)";
  }

  // `units`: how many parts of the C the compile must have used (0: not checked).
  std::shared_ptr<const witness_generator> load(const std::string& circuit, const std::string& cache = cache_dir(),
                                                const compile_options& options = {}, std::size_t units = 0) {
    const std::string wasm = data_dir + "/" + GetParam() + "/" + circuit + ".wasm";
    const auto bytes = read_bytes(wasm);
    auto lib = compile_witness_generator(bytes, wasm, cache, options);
    EXPECT_TRUE(lib.is_ok()) << lib.error().message();
    if (!lib) return nullptr;
    if (units) {
      EXPECT_EQ(lib->units, units) << circuit << ": compiled whole, not in units";
    }
    auto g = witness_generator::load(lib->library, wasm);
    EXPECT_TRUE(g.is_ok()) << g.error().message();
    return g ? *g : nullptr;
  }

  result<calculated_witness> calculate(const witness_generator& g, std::string_view input_json,
                                       const calculation_limits& limits = {}) {
    auto inputs = parse_circom_input(input_json, "input.json", g.prime());
    if (!inputs) return inputs.error();
    return g.calculate(*inputs, "input.json", limits);
  }

  std::string error_of(const witness_generator& g, std::string_view input_json) {
    auto w = calculate(g, input_json);
    EXPECT_FALSE(w.is_ok()) << input_json;
    return w ? "" : w.error().message();
  }

  // The witness of the fixture's input.json (tests/data/witness/circuits/<circuit>.input.json), which
  // must be snarkjs's .wtns to the byte.
  std::optional<calculated_witness> expect_snarkjs_bytes(const witness_generator& g, const std::string& circuit) {
    const auto input = formats::read_text_file(data_dir + "/circuits/" + circuit + ".input.json");
    EXPECT_TRUE(input.is_ok());
    if (!input) return std::nullopt;
    auto w = calculate(g, *input);
    EXPECT_TRUE(w.is_ok()) << w.error().message();
    if (!w) return std::nullopt;
    EXPECT_EQ(wtns_bytes(g, *w), read_bytes(data_dir + "/" + GetParam() + "/" + circuit + ".wtns")) << circuit;
    return std::move(w).value();
  }

  // The witness written as a .wtns, then its bytes.
  std::vector<uint8_t> wtns_bytes(const witness_generator& g, const calculated_witness& w) {
    return wtns_bytes_at(g, w, "out.wtns");
  }
  std::vector<uint8_t> wtns_bytes_at(const witness_generator& g, const calculated_witness& w, const std::string& name) {
    const std::string path = cache_dir() + "/" + name;
    const auto* prime = reinterpret_cast<const uint8_t*>(g.prime().data());
    const auto* values = reinterpret_cast<const uint8_t*>(w.words().data());
    const status s = formats::write_wtns_bytes(path, {prime, g.prime().size() * 4}, {values, w.words().size() * 4});
    EXPECT_TRUE(s) << s.message();
    auto bytes = read_bytes(path);
    EXPECT_EQ(bytes, w.wtns) << "the calculation's own .wtns bytes";
    return bytes;
  }
};

TEST_P(CircomWasm, MultiDimensionalInputsGiveSnarkjsBytes) {
  auto g = load("matrix");
  ASSERT_TRUE(g);
  auto w = expect_snarkjs_bytes(*g, "matrix");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->wire_count(), g->witness_size());
  // Compiled once: the second time it comes from the cache.
  auto again = compile_witness_generator(read_bytes(data_dir + "/" + GetParam() + "/matrix.wasm"), "matrix.wasm", cache_dir());
  ASSERT_TRUE(again.is_ok());
  EXPECT_TRUE(again->cached);
}

// The C cut into four units compiled at once (c_units.hpp) computes what the whole file does: every
// field function, a branch, a loop and an index on the inputs (graph_ops), and circom's message for
// a failed assert (range_check).
TEST_P(CircomWasm, CCompiledInUnitsGivesTheSameBytesAndMessages) {
  const std::string cache = cache_dir() + "/units";
  const auto compiled = [&](const std::string& circuit) { return load(circuit, cache, {.units = 4, .min_unit_bytes = 1}, 4); };
  auto ops = compiled("graph_ops");
  ASSERT_TRUE(ops);
  EXPECT_TRUE(expect_snarkjs_bytes(*ops, "graph_ops"));

  auto range = compiled("range_check");
  ASSERT_TRUE(range);
  auto whole = load("range_check");
  ASSERT_TRUE(whole);
  EXPECT_EQ(error_of(*range, R"({"x": 100})"), error_of(*whole, R"({"x": 100})"));
  EXPECT_NE(error_of(*range, R"({"x": 100})").find("Error in template"), std::string::npos);
}

TEST_P(CircomWasm, AFailedAssertGivesCircomsMessage) {
  auto g = load("range_check");
  ASSERT_TRUE(g);
  auto ok = calculate(*g, R"({"x": "5"})");
  ASSERT_TRUE(ok.is_ok()) << ok.error().message();
  EXPECT_EQ(wtns_bytes(*g, *ok), read_bytes(data_dir + "/" + GetParam() + "/range_check.wtns"));

  auto bad = calculate(*g, R"({"x": 100})");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.error().code(), errc::failed_precondition);
  const std::string wasm = data_dir + "/" + GetParam() + "/range_check.wasm";
  // What snarkjs wtns calculate prints for the same input: "Assert Failed." and the two lines.
  EXPECT_EQ(bad.error().message(), wasm + ": the circuit's witness code failed after input x (circom error 4): Assert "
                                          "Failed.\nError in template Bounded_0 line: 9\nError in template RangeCheck_1 line: 17");
  // The same generator computes again after a failure.
  EXPECT_TRUE(calculate(*g, R"({"x": 99})").is_ok());
}

TEST_P(CircomWasm, InputsTheCircuitDoesNotTakeAreNamed) {
  auto g = load("matrix");
  ASSERT_TRUE(g);
  const std::string full = R"("m": [[1,2,3],[4,5,6]], "x": [1,2,3], "k": 1, "cube": [[[1,2],[3,4]],[[5,6],[7,8]]])";
  EXPECT_EQ(error_of(*g, "{" + full + R"(, "extra": 1})"),
            "input.json: extra: the circuit (" + data_dir + "/" + GetParam() + "/matrix.wasm) has no input signal of this name");
  EXPECT_EQ(error_of(*g, R"({"m": [[1,2,3],[4,5]]})"),
            "input.json: m: expected 6 values (the circuit's size of this input), found 5");
  EXPECT_EQ(error_of(*g, R"({"m": [[1,2,3],[4,5,6]], "x": [1,2,3], "k": 1})"),
            "input.json: not all inputs are given: 10 of the circuit's 18 input values (circom's .sym file beside "
            "the wasm, or beside its _js folder, would name the missing ones)");
  EXPECT_TRUE(calculate(*g, "{" + full + "}").is_ok());
}

TEST_P(CircomWasm, TheWasmsOwnArithmeticGivesTheSameBytes) {
  auto g = load("matrix");
  ASSERT_TRUE(g);
  EXPECT_TRUE(g->native_field());
  const auto input = formats::read_text_file(CUZK_TEST_DATA_DIR "/witness/circuits/matrix.input.json");
  ASSERT_TRUE(input.is_ok());
  calculation_limits own;
  own.native_field = false;
  auto w = calculate(*g, *input, own);
  ASSERT_TRUE(w.is_ok()) << w.error().message();
  EXPECT_EQ(wtns_bytes(*g, *w), read_bytes(data_dir + "/" + GetParam() + "/matrix.wtns"));
}

// walk(x) in never_ending.circom ends for an even x and runs on for an odd one.
TEST_P(CircomWasm, WitnessCodeThatNeverEndsStopsAtItsTimeLimit) {
  auto g = load("never_ending");
  ASSERT_TRUE(g);
  auto ok = calculate(*g, R"({"x": "4"})");
  ASSERT_TRUE(ok.is_ok()) << ok.error().message();
  EXPECT_EQ(wtns_bytes(*g, *ok), read_bytes(data_dir + "/" + GetParam() + "/never_ending.wtns"));

  calculation_limits limits;
  const auto start = std::chrono::steady_clock::now();
  limits.deadline = start + std::chrono::milliseconds(300);
  auto hung = calculate(*g, R"({"x": "3"})", limits);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(hung.is_ok());
  EXPECT_EQ(hung.error().code(), errc::deadline_exceeded) << hung.error().message();
  EXPECT_EQ(hung.error().message(), data_dir + "/" + GetParam() +
                                        "/never_ending.wasm: the witness calculation ran past its time limit and was "
                                        "stopped after input x");
  EXPECT_LT(took, std::chrono::seconds(5));
  // The generator computes again after a stop.
  EXPECT_TRUE(calculate(*g, R"({"x": "8"})").is_ok());
}

TEST_P(CircomWasm, WitnessCodeThatNeverEndsStopsOnCancelWhileOthersRun) {
  auto g = load("never_ending");
  ASSERT_TRUE(g);
  auto matrix = load("matrix");
  ASSERT_TRUE(matrix);
  auto range = load("range_check");
  ASSERT_TRUE(range);
  const auto input = formats::read_text_file(CUZK_TEST_DATA_DIR "/witness/circuits/matrix.input.json");
  ASSERT_TRUE(input.is_ok());
  const auto expected = read_bytes(data_dir + "/" + GetParam() + "/matrix.wtns");

  std::stop_source cancel;
  calculation_limits limits;
  limits.stop = cancel.get_token();
  std::promise<result<calculated_witness>> hung;
  auto future = hung.get_future();
  std::jthread runner([&] { hung.set_value(calculate(*g, R"({"x": "3"})", limits)); });
  // Other calculations go on beside it, on several threads at once: no lock between them. Each
  // thread also fails an assert, a trap that unwinds through its own thread's target, and the
  // hung calculation is cancelled (another trap) while they still run.
  std::atomic<bool> go_on{true};
  std::atomic<int> rounds{0};
  std::vector<std::jthread> others;
  std::vector<std::vector<uint8_t>> results(4);
  std::vector<std::string> asserts(4);
  for (std::size_t t = 0; t < results.size(); ++t) {
    others.emplace_back([&, t] {
      while (go_on.load() || rounds.load() < 40) {
        auto w = calculate(*matrix, *input);
        if (!w) return;
        results[t] = wtns_bytes_at(*matrix, *w, "out" + std::to_string(t) + ".wtns");
        auto bad = calculate(*range, R"({"x": 100})");
        asserts[t] = bad ? "passed" : bad.error().message();
        rounds.fetch_add(1);
      }
    });
  }
  for (int i = 0; i < 12000 && rounds.load() < 8; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (rounds.load() < 8) {
    go_on = false;
    cancel.request_stop();
    FAIL() << "the other calculations did not run";
  }
  EXPECT_EQ(future.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout) << "the odd input ended";
  cancel.request_stop();
  const bool stopped_in_time = future.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  go_on = false;
  others.clear();  // joins
  ASSERT_TRUE(stopped_in_time) << "cancel did not stop it";
  auto stopped = future.get();
  ASSERT_FALSE(stopped.is_ok());
  EXPECT_EQ(stopped.error().code(), errc::cancelled) << stopped.error().message();
  for (std::size_t t = 0; t < results.size(); ++t) {
    EXPECT_EQ(results[t], expected) << "thread " << t;
    EXPECT_NE(asserts[t].find("Assert Failed."), std::string::npos) << "thread " << t << ": " << asserts[t];
  }
}

INSTANTIATE_TEST_SUITE_P(Curves, CircomWasm, ::testing::Values("bn128", "bls12381"));

}  // namespace
}  // namespace cuzk::witness
