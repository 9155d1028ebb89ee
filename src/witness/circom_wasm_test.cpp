// SPDX-License-Identifier: MIT OR Apache-2.0
// circom's witness code compiled by wasm2c and run (wasm_compiler.hpp, circom_wasm.hpp), against
// the .wtns files snarkjs made from the same .wasm (tests/data/witness/README.md): the same bytes
// on both curves, circom's message for a failed assert, and the input errors. Skipped where wasm2c
// is not installed (scripts/setup.sh installs wabt).
#include "witness/circom_wasm.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "formats/file_io.hpp"
#include "formats/wtns_writer.hpp"
#include "witness/wasm_compiler.hpp"

namespace cuzk::witness {
namespace {

namespace fs = std::filesystem;

const std::string data_dir = CUZK_TEST_DATA_DIR "/witness";

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  return {std::istreambuf_iterator<char>(in), {}};
}

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

  std::shared_ptr<const witness_generator> load(const std::string& circuit) {
    const std::string wasm = data_dir + "/" + GetParam() + "/" + circuit + ".wasm";
    const auto bytes = read_bytes(wasm);
    auto lib = compile_witness_generator(bytes, wasm, cache_dir());
    EXPECT_TRUE(lib.is_ok()) << lib.error().message();
    if (!lib) return nullptr;
    auto g = witness_generator::load(lib->library, wasm);
    EXPECT_TRUE(g.is_ok()) << g.error().message();
    return g ? *g : nullptr;
  }

  result<calculated_witness> calculate(const witness_generator& g, std::string_view input_json) {
    auto inputs = parse_circom_input(input_json, "input.json", g.prime());
    if (!inputs) return inputs.error();
    return g.calculate(*inputs, "input.json");
  }

  std::string error_of(const witness_generator& g, std::string_view input_json) {
    auto w = calculate(g, input_json);
    EXPECT_FALSE(w.is_ok()) << input_json;
    return w ? "" : w.error().message();
  }

  // The witness written as a .wtns, then its bytes.
  std::vector<uint8_t> wtns_bytes(const witness_generator& g, const calculated_witness& w) {
    const std::string path = cache_dir() + "/out.wtns";
    const auto* prime = reinterpret_cast<const uint8_t*>(g.prime().data());
    const auto* values = reinterpret_cast<const uint8_t*>(w.words.data());
    const status s = formats::write_wtns_bytes(path, {prime, g.prime().size() * 4}, {values, w.words.size() * 4});
    EXPECT_TRUE(s) << s.message();
    return read_bytes(path);
  }
};

TEST_P(CircomWasm, MultiDimensionalInputsGiveSnarkjsBytes) {
  auto g = load("matrix");
  ASSERT_TRUE(g);
  const auto input = formats::read_text_file(CUZK_TEST_DATA_DIR "/witness/circuits/matrix.input.json");
  ASSERT_TRUE(input.is_ok());
  auto w = calculate(*g, *input);
  ASSERT_TRUE(w.is_ok()) << w.error().message();
  EXPECT_EQ(w->wire_count(), g->witness_size());
  EXPECT_EQ(wtns_bytes(*g, *w), read_bytes(data_dir + "/" + GetParam() + "/matrix.wtns"));
  // Compiled once: the second time it comes from the cache.
  auto again = compile_witness_generator(read_bytes(data_dir + "/" + GetParam() + "/matrix.wasm"), "matrix.wasm", cache_dir());
  ASSERT_TRUE(again.is_ok());
  EXPECT_TRUE(again->cached);
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

INSTANTIATE_TEST_SUITE_P(Curves, CircomWasm, ::testing::Values("bn128", "bls12381"));

}  // namespace
}  // namespace cuzk::witness
