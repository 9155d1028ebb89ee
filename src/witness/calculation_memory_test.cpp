// SPDX-License-Identifier: MIT OR Apache-2.0
// A witness calculation's memory bound (calculation_memory.hpp): the arithmetic against the parts
// the header lists, and the bound held against real calculations of a fixture whose stack grows
// with its input (tests/data/witness/circuits/deep_stack.circom): the process's peak resident
// memory during a calculation (reset through /proc/self/clear_refs) stays within the bound for the
// wasm, a recording in line and beside, and a replay; the linear memory past the estimate is
// charged as it grows (refused: circom's message and the budget's), never capped without a
// budget; the recording asks for its values' memory and ends without a
// graph where it gets none; a calculation keeps to the estimate it was given. Skipped where wasm2c
// is not installed (scripts/setup.sh installs wabt).
#include "witness/calculation_memory.hpp"

#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "formats/file_io.hpp"
#include "formats/wtns_writer.hpp"
#include "witness/circom_wasm.hpp"
#include "witness/wasm_compiler.hpp"

namespace cuzk::witness {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::string data_dir = CUZK_TEST_DATA_DIR "/witness";
const std::string deep_stack_wasm = data_dir + "/bn128/deep_stack.wasm";

TEST(calculation_memory, the_bound_is_the_sum_of_the_parts_the_header_lists) {
  const circuit_sizes c{8, 1000, 11, 65536};
  const uint64_t page = 65536;
  const uint64_t instance = (11 + 256 + 1) * page + (1u << 20);
  const uint64_t wtns = formats::wtns_values_offset(32) + 1000 * 32;
  const uint64_t json = 500;
  EXPECT_EQ(instance_pages(c), 11u + 256 + 1);
  EXPECT_EQ(instance_bytes(c), instance);
  EXPECT_EQ(wtns_buffer_bytes(c), wtns);
  EXPECT_EQ(input_bytes(json), json * 65);

  const auto wasm = calculation_memory_bound(c, calculation_kind::wasm, {}, json);
  EXPECT_EQ(wasm.calculation, wtns + json * 65 + instance);
  EXPECT_EQ(wasm.recording, 0u);
  EXPECT_FALSE(wasm.records());

  // A replay counts the wasm it may fall back to, or itself where that is larger.
  EXPECT_EQ(calculation_memory_bound(c, calculation_kind::replay, {10, 2, false}, json).calculation, wasm.calculation);
  EXPECT_EQ(calculation_memory_bound(c, calculation_kind::replay, {10, 2, true}, json).calculation,
            wasm.calculation + 12 * 32);
  EXPECT_EQ(calculation_memory_bound(c, calculation_kind::replay, {1'000'000, 0, false}, json).calculation,
            wtns + json * 65 + 1'000'000 * 32);

  // A recording: the marks over the linear memory and those a copy saves, 64 bytes a wire, and
  // beside a calculation its own instance, .wtns and inputs.
  const auto in_line = calculation_memory_bound(c, calculation_kind::record_in_line, {}, json);
  EXPECT_EQ(in_line.calculation, wasm.calculation);
  // (3/8 of the linear memory and half of it: element_marks.hpp).
  EXPECT_EQ(in_line.recording, (11 + 256 + 1) * page * 3 / 8 + (11 + 256 + 1) * page / 2 + 1000 * 64);
  const auto beside = calculation_memory_bound(c, calculation_kind::record_beside, {}, json);
  EXPECT_EQ(beside.recording, in_line.recording + instance + wtns + json * 32);
  EXPECT_EQ(beside.total(), beside.calculation + beside.recording);

  // A module that declares its maximum keeps it, with cuzk's one page beside.
  EXPECT_EQ(instance_pages({8, 1000, 11, 20}), 21u);
  EXPECT_EQ(instance_pages({8, 1000, 65500, 65536}), 65536u);
}

// The process's resident memory, reset to its current size as its peak: what a calculation adds to
// it is then VmHWM after the calculation less VmRSS here. Free heap memory goes back to the system
// first, so that the calculation's allocations show rather than reuse pages already resident.
class resident_peak {
 public:
  resident_peak() {
    ::malloc_trim(0);
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    clear.close();
    EXPECT_TRUE(clear.good()) << "/proc/self/clear_refs: cannot reset the peak resident memory";
    base_ = status_bytes("VmRSS:");
  }
  uint64_t growth() const { return status_bytes("VmHWM:") - base_; }

 private:
  static uint64_t status_bytes(const std::string& key) {
    std::ifstream f("/proc/self/status");
    for (std::string line; std::getline(f, line);)
      if (line.rfind(key, 0) == 0) return std::stoull(line.substr(key.size())) * 1024;
    ADD_FAILURE() << "/proc/self/status has no " << key;
    return 0;
  }
  uint64_t base_ = 0;
};

class CalculationMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v wasm2c >/dev/null 2>&1") != 0) GTEST_SKIP() << "wasm2c not installed (apt-get install wabt)";
    static int tests = 0;
    cache_ = (fs::temp_directory_path() / ("cuzk-calc-memory-" + std::to_string(::getpid()) + "-" + std::to_string(++tests)))
                 .string();
  }
  void TearDown() override {
    std::error_code ec;
    if (!cache_.empty()) fs::remove_all(cache_, ec);
  }

  // Compiled into this test's own cache: each test starts without a graph.
  std::shared_ptr<const witness_generator> load() {
    std::ifstream in(deep_stack_wasm, std::ios::binary);
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
    auto lib = compile_witness_generator(bytes, deep_stack_wasm, cache_);
    EXPECT_TRUE(lib.is_ok()) << lib.error().message();
    if (!lib) return nullptr;
    auto g = witness_generator::load(lib->library, deep_stack_wasm);
    EXPECT_TRUE(g.is_ok()) << g.error().message();
    return g ? *g : nullptr;
  }

  // depth(n) takes n frames of a thousand elements (40 KB each) beyond the declared memory.
  static std::string input(int n) { return R"({"n": ")" + std::to_string(n) + R"("})"; }

  result<calculated_witness> calculate(const witness_generator& g, const std::string& json,
                                       const calculation_limits& limits) {
    auto inputs = parse_circom_input(json, "input.json", g.prime());
    if (!inputs) return inputs.error();
    return g.calculate(*inputs, "input.json", limits);
  }

  // A calculation as the daemon runs one: its estimate first (kept to through `within`), the
  // recording's values granted as it asks. Returns what the bound allowed (the estimate and the
  // values granted) and what the process's resident memory grew by, the recording beside included.
  struct measured {
    calculation_memory estimate;
    uint64_t granted = 0, growth = 0;
    result<calculated_witness> witness = status(errc::internal, "not run");
  };
  measured run(const witness_generator& g, const std::string& json, calculation_limits limits) {
    measured m;
    m.estimate = g.memory_needed(json.size(), limits);
    limits.within = m.estimate;
    auto granted = std::make_shared<std::atomic<uint64_t>>(0);
    limits.recording_memory = [granted](uint64_t bytes) {
      *granted += bytes;
      return true;
    };
    resident_peak peak;
    m.witness = calculate(g, json, limits);
    // A recording beside the calculation is measured to its end.
    for (int i = 0; i < 3000 && g.graph() == graph_state::recording; ++i) std::this_thread::sleep_for(10ms);
    EXPECT_NE(g.graph(), graph_state::recording) << "the recording beside did not end";
    m.growth = peak.growth();
    m.granted = *granted;
    return m;
  }

  std::string cache_;
};

TEST_F(CalculationMemory, a_calculation_stays_within_its_bound_however_it_runs) {
  auto g = load();
  ASSERT_TRUE(g);
  const circuit_sizes s = g->sizes();
  EXPECT_EQ(s.declared_pages, 11u) << "the fixture's module declares 11 pages";
  EXPECT_EQ(s.witness_size, 4u);
  // 300 frames: 12 MB of linear memory beyond the declared 0.7 MB, within the 16 MiB allowed for the
  // stack, so that the bound holds only if it counts the memory the stack takes.
  const std::string json = input(300);

  calculation_limits wasm_only;
  wasm_only.graph = false;
  auto wasm = run(*g, json, wasm_only);
  ASSERT_TRUE(wasm.witness.is_ok()) << wasm.witness.error().message();
  EXPECT_EQ(wasm.estimate.kind, calculation_kind::wasm);
  EXPECT_GT(wasm.growth, 12'000'000u) << "the stack's frames are resident";
  EXPECT_LE(wasm.growth, wasm.estimate.total());

  auto recorded = run(*g, json, {});  // the first calculation records in line
  ASSERT_TRUE(recorded.witness.is_ok()) << recorded.witness.error().message();
  EXPECT_EQ(recorded.estimate.kind, calculation_kind::record_in_line);
  EXPECT_EQ(g->graph(), graph_state::ready) << g->graph_reason();
  EXPECT_GT(recorded.granted, 0u) << "the recording asked for its values' memory";
  EXPECT_GT(recorded.growth, wasm.growth) << "the marks over the stack's memory are resident too";
  EXPECT_LE(recorded.growth, recorded.estimate.total() + recorded.granted);

  auto replayed = run(*g, json, {});
  ASSERT_TRUE(replayed.witness.is_ok()) << replayed.witness.error().message();
  EXPECT_EQ(replayed.estimate.kind, calculation_kind::replay);
  EXPECT_TRUE(replayed.witness->by_graph);
  EXPECT_LE(replayed.growth, replayed.estimate.total());
  EXPECT_EQ(replayed.witness->wtns, wasm.witness->wtns);
}

TEST_F(CalculationMemory, a_recording_beside_the_calculation_stays_within_its_bound_until_it_ends) {
  auto g = load();
  ASSERT_TRUE(g);
  calculation_limits beside;
  beside.graph_recording = calculation_limits::recording::beside;
  auto m = run(*g, input(300), beside);
  ASSERT_TRUE(m.witness.is_ok()) << m.witness.error().message();
  EXPECT_EQ(m.estimate.kind, calculation_kind::record_beside);
  EXPECT_EQ(g->graph(), graph_state::ready) << g->graph_reason();
  // The recording's own instance (its 12 MB stack) and its marks over that stack (3/8 of it at
  // least, element_marks.hpp), whether or not the calculation's instance is still resident then:
  // the recording may peak after the calculation has returned its memory.
  EXPECT_GT(m.growth, 12'000'000u * 11 / 8) << "the recording's instance and its marks over it, at least";
  EXPECT_LE(m.growth, m.estimate.total() + m.granted);
}

TEST_F(CalculationMemory, the_linear_memory_past_the_estimate_is_charged_as_it_grows_and_never_capped_without_a_budget) {
  auto g = load();
  ASSERT_TRUE(g);
  calculation_limits wasm_only;
  wasm_only.graph = false;
  // 1000 frames of 40 KB (40 MB) do not fit the 16 MiB counted beyond the declared memory; snarkjs
  // computes them, and so does a calculation with no budget (the `cuzk wtns calculate` command).
  auto unbudgeted = calculate(*g, input(1000), wasm_only);
  ASSERT_TRUE(unbudgeted.is_ok()) << unbudgeted.error().message();

  // With a budget: the pages past the estimate are asked for as the memory grows.
  calculation_limits budgeted = wasm_only;
  budgeted.within = g->memory_needed(0, wasm_only);
  ASSERT_EQ(budgeted.within->kind, calculation_kind::wasm);
  uint64_t granted = 0;
  int asks = 0;
  budgeted.memory_growth = [&](uint64_t bytes) {
    granted += bytes;
    ++asks;
    return true;
  };
  auto charged = calculate(*g, input(1000), budgeted);
  ASSERT_TRUE(charged.is_ok()) << charged.error().message();
  EXPECT_EQ(charged->wtns, unbudgeted->wtns);
  EXPECT_GT(asks, 0);
  EXPECT_EQ(granted % wasm_page_bytes, 0u);
  EXPECT_GE(granted, uint64_t{40'000'000} - uint64_t{16} * 1024 * 1024 - 12 * wasm_page_bytes) << "the stack beyond the estimate";
  EXPECT_LE(granted, uint64_t{48} << 20);
  // Within the estimate nothing is asked.
  asks = 0;
  ASSERT_TRUE(calculate(*g, input(100), budgeted).is_ok());
  EXPECT_EQ(asks, 0);

  // A budget that says no: circom's message and a note naming the budget, told apart from the
  // circuit's code failing (failed_precondition) by its code.
  budgeted.memory_growth = [](uint64_t) { return false; };
  auto beyond = calculate(*g, input(1000), budgeted);
  ASSERT_FALSE(beyond.is_ok());
  EXPECT_EQ(beyond.error().code(), errc::resource_exhausted);
  EXPECT_NE(beyond.error().message().find("(circom error 5): Not enough memory."), std::string::npos)
      << beyond.error().message();
  EXPECT_NE(beyond.error().message().find("cuzk's host budget had no room for the wasm's linear memory beyond 268 pages"),
            std::string::npos)
      << beyond.error().message();
  // An estimate without a budget to ask: never capped, as without the estimate.
  budgeted.memory_growth = nullptr;
  auto uncapped = calculate(*g, input(1000), budgeted);
  ASSERT_TRUE(uncapped.is_ok()) << uncapped.error().message();
  EXPECT_EQ(uncapped->wtns, unbudgeted->wtns);
  // The fixture's own input (100 frames) gives snarkjs's bytes.
  const auto json = formats::read_text_file(data_dir + "/circuits/deep_stack.input.json");
  ASSERT_TRUE(json.is_ok());
  auto w = calculate(*g, *json, wasm_only);
  ASSERT_TRUE(w.is_ok()) << w.error().message();
  std::ifstream in(data_dir + "/bn128/deep_stack.wtns", std::ios::binary);
  EXPECT_EQ(w->wtns, std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {}));
}

TEST_F(CalculationMemory, a_recording_that_gets_no_memory_for_its_values_leaves_the_graph_to_a_later_calculation) {
  auto g = load();
  ASSERT_TRUE(g);
  calculation_limits refused;
  uint64_t asked = 0;
  refused.recording_memory = [&asked](uint64_t bytes) {
    asked += bytes;
    return false;
  };
  auto w = calculate(*g, input(50), refused);
  ASSERT_TRUE(w.is_ok()) << "the calculation itself goes on: " << w.error().message();
  EXPECT_EQ(asked, recording_chunk_bytes) << "one chunk asked for, then the recording stopped";
  EXPECT_EQ(g->graph(), graph_state::none_yet) << "not refused for good: " << g->graph_reason();

  uint64_t granted = 0;
  calculation_limits granting;
  granting.recording_memory = [&granted](uint64_t bytes) {
    granted += bytes;
    return true;
  };
  auto again = calculate(*g, input(50), granting);
  ASSERT_TRUE(again.is_ok()) << again.error().message();
  EXPECT_EQ(g->graph(), graph_state::ready) << g->graph_reason();
  EXPECT_EQ(granted % recording_chunk_bytes, 0u);
  EXPECT_GE(granted, recording_chunk_bytes);
  EXPECT_EQ(again->wtns, w->wtns);
}

TEST_F(CalculationMemory, a_calculation_does_only_what_its_estimate_counted) {
  auto g = load();
  ASSERT_TRUE(g);
  calculation_limits counted;
  counted.within = g->memory_needed(0, counted);
  ASSERT_EQ(counted.within->kind, calculation_kind::record_in_line);
  // Estimated as the wasm alone (the caller had no room for the recording): nothing is recorded.
  counted.within = calculation_memory_bound(g->sizes(), calculation_kind::wasm, {}, 0);
  ASSERT_TRUE(calculate(*g, input(20), counted).is_ok());
  EXPECT_EQ(g->graph(), graph_state::none_yet);

  ASSERT_TRUE(calculate(*g, input(20), {}).is_ok());  // records
  ASSERT_EQ(g->graph(), graph_state::ready);
  EXPECT_EQ(g->memory_needed(0).kind, calculation_kind::replay);
  // Estimated before the graph was there: the wasm computes it.
  auto by_wasm = calculate(*g, input(20), counted);
  ASSERT_TRUE(by_wasm.is_ok());
  EXPECT_FALSE(by_wasm->by_graph);
  auto by_graph = calculate(*g, input(20), {});
  ASSERT_TRUE(by_graph.is_ok());
  EXPECT_TRUE(by_graph->by_graph);
  EXPECT_EQ(by_graph->wtns, by_wasm->wtns);
}

}  // namespace
}  // namespace cuzk::witness
