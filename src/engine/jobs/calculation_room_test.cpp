// SPDX-License-Identifier: MIT OR Apache-2.0
// A witness calculation's memory in the host budget (calculation_room.hpp), with a real circuit's
// generator (tests/data/witness/bn128/matrix.wasm): the room from spare room only, its recording
// part left out where there is no room for it, the recording's reservation held by the limits it
// is handed to, and a batch's calculation share lent to one calculation at a time, others running
// beside it on spare room or waiting for it, until a cancel; the share back to the budget once the
// batch has no calculation left. And the linear memory a calculation grows past its estimate
// (tests/data/witness/circuits/deep_stack.circom, whose stack grows with its input), charged to the
// room as it grows and given back with it, to the budget or to the share that lent the room. The
// engine's own tests with real jobs are in engine_input_json_test.cpp. Skipped where wasm2c is not
// installed.
#include "engine/jobs/calculation_room.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>

#include "base/poll_until.hpp"
#include "engine/jobs/input_witness.hpp"
#include "engine/witness_ahead.hpp"
#include "witness/wasm_compiler.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string matrix_wasm = CUZK_TEST_DATA_DIR "/witness/bn128/matrix.wasm";
const std::string deep_stack_wasm = CUZK_TEST_DATA_DIR "/witness/bn128/deep_stack.wasm";

// One cache for the suite: the circuit is compiled once.
const std::string& cache_dir() {
  static const std::string d = (fs::temp_directory_path() / ("cuzk-calculation-room-" + std::to_string(::getpid()))).string();
  return d;
}

// A suite of tests with a circuit's generator, compiled into the suite's cache (removed after it).
// Skipped where wasm2c is not installed.
class generator_test : public ::testing::Test {
 protected:
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(cache_dir(), ec);
  }
  void SetUp() override {
    if (std::system("command -v wasm2c >/dev/null 2>&1") != 0) GTEST_SKIP() << "wasm2c not installed (apt-get install wabt)";
  }
  // `wasm`'s generator into gen_: a fresh one, without a graph yet.
  void load(const std::string& wasm) {
    std::ifstream in(wasm, std::ios::binary);
    const std::vector<uint8_t> code{std::istreambuf_iterator<char>(in), {}};
    auto lib = witness::compile_witness_generator(code, wasm, cache_dir());
    ASSERT_TRUE(lib.is_ok()) << lib.error().to_string();
    auto g = witness::witness_generator::load(lib->library, wasm);
    ASSERT_TRUE(g.is_ok()) << g.error().to_string();
    gen_ = *g;
  }
  std::shared_ptr<const witness::witness_generator> gen_;
};

class calculation_room_test : public generator_test {
 protected:
  void SetUp() override {
    generator_test::SetUp();
    if (IsSkipped()) return;
    ASSERT_NO_FATAL_FAILURE(load(matrix_wasm));
    // A fresh generator of a circuit without a graph yet: its first calculation records beside.
    ASSERT_EQ(gen_->graph(), witness::graph_state::none_yet);
    estimate_ = calculation_estimate(*gen_, input_bytes);
    ASSERT_EQ(estimate_.kind, witness::calculation_kind::record_beside);
  }
  static constexpr uint64_t input_bytes = 100;
  witness::calculation_memory estimate_;
};

TEST_F(calculation_room_test, spare_room_gives_the_whole_room_or_the_calculation_alone_or_nothing) {
  memory_budget roomy("host", memory_kind::host, -1, estimate_.total());
  auto all = spare_calculation_room(*gen_, input_bytes, roomy, "job 1", nullptr);
  ASSERT_TRUE(all.is_ok()) << all.error().to_string();
  EXPECT_EQ(all->calculation.bytes(), estimate_.calculation);
  EXPECT_EQ(all->recording.bytes(), estimate_.recording);
  EXPECT_EQ(roomy.used(), estimate_.total());

  // Room for the calculation, not its recording: planned as the wasm alone.
  memory_budget tight("host", memory_kind::host, -1, estimate_.total() - 1);
  auto alone = spare_calculation_room(*gen_, input_bytes, tight, "job 2", nullptr);
  ASSERT_TRUE(alone.is_ok());
  EXPECT_EQ(alone->planned.kind, witness::calculation_kind::wasm);
  EXPECT_EQ(alone->planned.recording, 0u);
  EXPECT_EQ(tight.used(), estimate_.calculation);

  // Not even that, now or ever.
  memory_budget busy("host", memory_kind::host, -1, estimate_.calculation);
  auto held = busy.acquire(1).value();
  refusal why = refusal::none;
  auto none = spare_calculation_room(*gen_, input_bytes, busy, "job 3", &why);
  ASSERT_FALSE(none.is_ok());
  EXPECT_EQ(why, refusal::timed_out);
  memory_budget small("host", memory_kind::host, -1, estimate_.calculation - 1);
  auto never = spare_calculation_room(*gen_, input_bytes, small, "job 4 partition 0 of circuit matrix", &why);
  ASSERT_FALSE(never.is_ok());
  EXPECT_EQ(why, refusal::too_large);
  EXPECT_NE(never.error().message().find("for job 4 partition 0 of circuit matrix: the witness calculation (its wasm, and "
                                         "the recording of its witness graph, " + matrix_wasm + ")"),
            std::string::npos)
      << never.error().message();
}

TEST_F(calculation_room_test, the_recordings_reservation_goes_with_the_limits_it_is_handed_to) {
  memory_budget host("host", memory_kind::host, -1, estimate_.total() + (uint64_t{64} << 20));
  auto room = spare_calculation_room(*gen_, input_bytes, host, "job 1", nullptr);
  ASSERT_TRUE(room.is_ok());
  {
    witness::calculation_limits limits;
    room->hand_to(limits, "job 1");
    EXPECT_EQ(limits.within->kind, witness::calculation_kind::record_beside);
    EXPECT_FALSE(room->recording) << "moved to the limits";
    ASSERT_TRUE(limits.recording_memory);
    EXPECT_TRUE(limits.recording_memory(uint64_t{16} << 20)) << "the values' memory from spare room";
    EXPECT_EQ(host.used(), estimate_.total() + (uint64_t{16} << 20));
    EXPECT_FALSE(limits.recording_memory(uint64_t{64} << 20)) << "no more room: the recording stops";
    room->calculation.reset();
    EXPECT_EQ(host.used(), estimate_.recording + (uint64_t{16} << 20)) << "held while the limits live";
  }
  EXPECT_EQ(host.used(), 0u);
}

TEST_F(calculation_room_test, a_batchs_share_is_lent_to_one_calculation_at_a_time) {
  const uint64_t need = estimate_.calculation;
  memory_budget host("host", memory_kind::host, -1, need);  // the share and nothing beside it
  calculation_share share(host);
  share.add(host.acquire(need).value());
  cancel_token cancel;
  auto first = share.take(*gen_, input_bytes, cancel, "job 1 partition 0");
  ASSERT_TRUE(first.is_ok()) << first.error().to_string();
  EXPECT_TRUE(first->from_share);
  EXPECT_EQ(first->planned.kind, witness::calculation_kind::wasm) << "no room for the recording beside the share";
  EXPECT_EQ(host.used(), need);

  // A second partition waits for the share (no spare room), and gets it once it is back.
  auto second = std::async(std::launch::async, [&] { return share.take(*gen_, input_bytes, cancel, "job 1 partition 1"); });
  EXPECT_EQ(second.wait_for(100ms), std::future_status::timeout);
  share.give_back(*first);
  auto got = second.get();
  ASSERT_TRUE(got.is_ok()) << got.error().to_string();
  EXPECT_TRUE(got->from_share);
  EXPECT_EQ(host.used(), need);
  EXPECT_EQ(host.snapshot().timed_out, 0u) << "its looks for spare room while it waited count as no refusal";

  // A cancel ends a wait.
  cancel_token stopping;
  auto third = std::async(std::launch::async, [&] { return share.take(*gen_, input_bytes, stopping, "job 1 partition 2"); });
  EXPECT_EQ(third.wait_for(100ms), std::future_status::timeout);
  stopping.request(cancel_reason::caller);
  auto cancelled = third.get();
  ASSERT_FALSE(cancelled.is_ok());
  EXPECT_EQ(cancelled.error().code(), errc::cancelled);

  // done() while lent: the share goes back with the calculation's memory.
  share.done();
  EXPECT_EQ(host.used(), need);
  share.give_back(*got);
  EXPECT_EQ(host.used(), 0u);
}

TEST_F(calculation_room_test, calculations_beside_the_share_run_on_spare_room) {
  const uint64_t need = estimate_.calculation;
  memory_budget host("host", memory_kind::host, -1, 2 * need);
  calculation_share share(host);
  share.add(host.acquire(need).value());
  const cancel_token cancel;
  auto first = share.take(*gen_, input_bytes, cancel, "job 1 partition 0");
  ASSERT_TRUE(first.is_ok());
  auto beside = share.take(*gen_, input_bytes, cancel, "job 1 partition 1");
  ASSERT_TRUE(beside.is_ok()) << beside.error().to_string();
  EXPECT_FALSE(beside->from_share);
  EXPECT_EQ(host.used(), 2 * need);
  share.give_back(*beside);
  EXPECT_EQ(host.used(), need) << "spare room straight back to the budget";
  share.give_back(*first);
  EXPECT_EQ(host.used(), need) << "the share stays with the batch";
  share.done();
  EXPECT_EQ(host.used(), 0u) << "until no calculation is left";
}

// A calculation larger than its batch's whole share (a batch admitted without one) gets spare
// room, after asking the evictors, or fails at once saying why: its worker holds its job's memory,
// so it never waits in the budget's line for more.
TEST_F(calculation_room_test, a_calculation_larger_than_its_share_never_waits_in_line) {
  const uint64_t need = estimate_.calculation;
  memory_budget host("host", memory_kind::host, -1, need + 1);
  calculation_share share(host);
  share.add(host.acquire(1).value());
  reservation cached = host.acquire(1).value();
  cancel_token cancel;
  auto refused = std::async(std::launch::async, [&] { return share.take(*gen_, input_bytes, cancel, "job 1 partition 0"); });
  if (refused.wait_for(5s) != std::future_status::ready) {
    cancel.request(cancel_reason::caller);
    host.wake_waiters();
    FAIL() << "the calculation waited in line for memory while its worker holds some";
  }
  auto r = refused.get();
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.error().code(), errc::resource_exhausted);
  EXPECT_NE(r.error().message().find("job 1 partition 0: the witness calculation needs " + describe_bytes(need) +
                                     ", more than its batch's calculation share (1 bytes, reserved at admission)"),
            std::string::npos)
      << r.error().message();
  EXPECT_EQ(host.snapshot().waiting, 0u);
  EXPECT_EQ(host.used(), 2u);

  // What is cached gives way to it.
  auto reg = host.add_evictor("cache", evictor_rank::witnesses_ahead, [&](uint64_t) {
    const uint64_t freed = cached.bytes();
    cached.reset();
    return freed;
  });
  auto room = share.take(*gen_, input_bytes, cancel, "job 1 partition 0");
  ASSERT_TRUE(room.is_ok()) << room.error().to_string();
  EXPECT_FALSE(room->from_share);
  EXPECT_EQ(host.snapshot().eviction_bytes_freed, 1u);
  EXPECT_EQ(host.used(), need + 1);
  share.done();
  EXPECT_EQ(host.used(), need) << "the share back; spare room is the calculation's until it returns";
  share.give_back(*room);
  EXPECT_EQ(host.used(), 0u);
}

// A worker's growth asks the evictors where there is no spare room (a ready witness computed ahead
// is cheaper to redo than its job); a witness thread's asks in line, from spare room only, so it
// takes nothing a request in line waits for and pushes no cache out.
TEST_F(calculation_room_test, a_workers_growth_asks_the_evictors_and_a_witness_threads_only_spare_room_in_line) {
  const uint64_t need = estimate_.calculation, page = witness::wasm_page_bytes;
  memory_budget host("host", memory_kind::host, -1, 2 * need + 8 * page);
  calculation_share share(host);
  share.add(host.acquire(need).value());
  const cancel_token cancel;
  auto worker = share.take(*gen_, input_bytes, cancel, "job 1 partition 0");
  ASSERT_TRUE(worker.is_ok()) << worker.error().to_string();
  auto ahead = spare_calculation_room(*gen_, input_bytes, host, "job 2 partition 0", nullptr);
  ASSERT_TRUE(ahead.is_ok()) << ahead.error().to_string();
  // All but a page held by a cache.
  reservation cached = host.acquire(host.limit() - host.used() - page).value();
  auto reg = host.add_evictor("cache", evictor_rank::witnesses_ahead, [&](uint64_t) {
    const uint64_t freed = cached.bytes();
    cached.reset();
    return freed;
  });
  cancel_token waiter_cancel;
  auto waiter = std::async(std::launch::async, [&] {
    return host.acquire(2 * page, {&waiter_cancel, std::nullopt, "in line", false, nullptr});
  });
  ASSERT_TRUE(poll_until([&] { return host.snapshot().waiting == 1; }));
  const uint64_t full = host.used() + page;
  {
    witness::calculation_limits speculative, own;
    ahead->hand_to(speculative, "job 2 partition 0");
    worker->hand_to(own, "job 1 partition 0");
    EXPECT_FALSE(speculative.memory_growth(page)) << "the page free is the line's";
    EXPECT_EQ(host.used(), full - page);
    EXPECT_TRUE(own.memory_growth(page)) << "ahead of the line";
    EXPECT_EQ(host.used(), full);
    EXPECT_FALSE(speculative.memory_growth(page)) << "no eviction for speculative work";
    EXPECT_EQ(host.snapshot().eviction_calls, 0u);
    EXPECT_TRUE(own.memory_growth(page)) << "the cache gives way";
    EXPECT_EQ(host.snapshot().eviction_calls, 1u);
    EXPECT_FALSE(cached);
  }
  EXPECT_EQ(worker->calculation.bytes(), need + 2 * page);
  EXPECT_EQ(ahead->calculation.bytes(), ahead->planned.calculation) << "it never grew";
  waiter_cancel.request(cancel_reason::caller);
  host.wake_waiters();
  (void)waiter.get();
  *ahead = {};
  share.give_back(*worker);
  share.done();
  EXPECT_EQ(host.used(), 0u);
}

// The share lent to a calculation whose linear memory grows (hand_to's memory_growth, as the wasm
// asks it): the growth comes from spare room, ahead of a request waiting in line, and goes back to
// the budget; the share takes back what it lent, so it lends the next calculation its own size.
TEST_F(calculation_room_test, a_share_lent_to_a_calculation_that_grew_takes_back_only_what_it_lent) {
  const uint64_t need = estimate_.calculation;
  const uint64_t page = witness::wasm_page_bytes;
  memory_budget host("host", memory_kind::host, -1, need + 4 * page);
  calculation_share share(host);
  share.add(host.acquire(need).value());
  const cancel_token cancel;
  auto room = share.take(*gen_, input_bytes, cancel, "job 1 partition 0");
  ASSERT_TRUE(room.is_ok()) << room.error().to_string();
  ASSERT_TRUE(room->from_share);
  ASSERT_EQ(room->calculation.bytes(), need);

  cancel_token waiter_cancel;
  acquire_options in_line;
  in_line.cancel = &waiter_cancel;
  auto waiter = std::async(std::launch::async, [&] { return host.acquire(5 * page, in_line); });
  ASSERT_TRUE(poll_until([&] { return host.snapshot().waiting == 1; }));
  {
    witness::calculation_limits limits;
    room->hand_to(limits, "job 1 partition 0");
    ASSERT_TRUE(limits.memory_growth);
    EXPECT_TRUE(limits.memory_growth(3 * page)) << "room for it, though a request waits in line";
    EXPECT_EQ(room->calculation.bytes(), need + 3 * page);
    EXPECT_EQ(host.used(), need + 3 * page);
    EXPECT_FALSE(limits.memory_growth(2 * page)) << "a page left";
    EXPECT_EQ(host.used(), need + 3 * page);
  }
  share.give_back(*room);
  EXPECT_FALSE(room->calculation);
  EXPECT_EQ(host.used(), need) << "the growth back to the budget, the share kept";
  share.give_back(*room);
  EXPECT_EQ(host.used(), need) << "given back once";
  waiter_cancel.request(cancel_reason::caller);
  host.wake_waiters();
  auto waited = waiter.get();
  ASSERT_FALSE(waited.is_ok()) << "4 pages free of the 5 it asks";
  EXPECT_EQ(waited.error().code(), errc::cancelled);

  auto again = share.take(*gen_, input_bytes, cancel, "job 1 partition 1");
  ASSERT_TRUE(again.is_ok()) << again.error().to_string();
  EXPECT_TRUE(again->from_share);
  EXPECT_EQ(again->calculation.bytes(), need) << "the share lends its own size";
  {
    witness::calculation_limits limits;
    again->hand_to(limits, "job 1 partition 1");
    EXPECT_TRUE(limits.memory_growth(page));
  }
  // done() while lent: the share and the growth go back with the calculation's room.
  share.done();
  EXPECT_EQ(host.used(), need + page);
  share.give_back(*again);
  EXPECT_EQ(host.used(), 0u);
}

// A real calculation run as the engine runs one (input_partition_witness in a reserved room) whose
// linear memory grows past its estimate: depth(n) of deep_stack.circom takes n frames of 40 KB of
// circom's stack, past the 16 MiB the estimate counts beyond the 11 declared pages from about 420.
class calculation_growth_test : public generator_test {
 protected:
  static constexpr uint64_t page = witness::wasm_page_bytes;
  // Spare room for the growth, not for the first calculation's recording (34 MB): the calculations
  // run the wasm alone, which the recording would only follow.
  static constexpr uint64_t spare = uint64_t{16} << 20;

  void SetUp() override {
    generator_test::SetUp();
    if (IsSkipped()) return;
    ASSERT_NO_FATAL_FAILURE(load(deep_stack_wasm));
    key_.n_vars = gen_->witness_size();
    for (int n : {600, 1000}) {
      std::ofstream(input_path(n)) << R"({"n": ")" << n << R"("})";
      ASSERT_EQ(input_json_size(input_path(n)), input_size(n));
    }
  }
  static std::string input_path(int n) { return cache_dir() + "/deep_stack." + std::to_string(n) + ".json"; }
  static uint64_t input_size(int n) { return 9 + std::to_string(n).size(); }

  result<any_witness> calculate(int n, calculation_room& room) {
    return input_partition_witness(gen_, input_path(n), 0, key_, std::chrono::seconds(60), [] { return false; }, room,
                                   "job 1 partition 0 of circuit deep_stack");
  }

  key_summary key_;
};

// A witness thread's room, from spare room: the growth charged to it while the calculation runs
// (the budget's peak is the estimate and the growth), everything back when the room goes, as
// witness_ahead drops it.
TEST_F(calculation_growth_test, a_calculations_growth_is_charged_while_it_runs_and_given_back_with_its_room) {
  const uint64_t need = calculation_estimate(*gen_, input_size(600)).calculation;
  memory_budget host("host", memory_kind::host, -1, need + spare);
  auto room = spare_calculation_room(*gen_, input_size(600), host, "job 1 partition 0", nullptr);
  ASSERT_TRUE(room.is_ok()) << room.error().to_string();
  ASSERT_EQ(room->planned.kind, witness::calculation_kind::wasm) << "no room for the recording";
  auto w = calculate(600, *room);
  ASSERT_TRUE(w.is_ok()) << w.error().to_string();
  const uint64_t grown = room->calculation.bytes() - need;
  EXPECT_GE(grown, 600 * uint64_t{40'000} - (uint64_t{16} << 20) - 12 * page) << "the stack past the estimate";
  EXPECT_LE(grown, uint64_t{12} << 20);
  EXPECT_EQ(grown % page, 0u);
  EXPECT_EQ(host.used(), need + grown) << "held with the room until it goes";
  EXPECT_EQ(host.snapshot().peak, need + grown);
  *room = {};
  EXPECT_EQ(host.used(), 0u);
}

// A worker's room, lent by its batch's share: the growth back to the budget when the calculation
// returns, succeeding or refused its growth (circom's "Not enough memory." and the budget's note),
// the share back to its own size for the next calculation, and nothing held once the batch is done.
TEST_F(calculation_growth_test, a_worker_calculations_growth_goes_back_to_the_budget_and_its_share_to_the_batch) {
  const uint64_t need = calculation_estimate(*gen_, input_size(1000)).calculation;
  memory_budget host("host", memory_kind::host, -1, need + spare);
  calculation_share share(host);
  share.add(host.acquire(need).value());
  const cancel_token cancel;

  auto room = share.take(*gen_, input_size(600), cancel, "job 1 partition 0");
  ASSERT_TRUE(room.is_ok()) << room.error().to_string();
  ASSERT_TRUE(room->from_share);
  ASSERT_EQ(room->planned.kind, witness::calculation_kind::wasm);
  const uint64_t lent = room->calculation.bytes();
  auto w = calculate(600, *room);
  ASSERT_TRUE(w.is_ok()) << w.error().to_string();
  const uint64_t grown = room->calculation.bytes() - lent;
  EXPECT_GT(grown, 0u);
  EXPECT_EQ(host.used(), need + grown);
  share.give_back(*room);
  EXPECT_EQ(host.used(), need) << "the growth back to the budget";

  // 1000 frames need 23 MB past the estimate: the budget grants its 16 MiB, then refuses.
  auto deeper = share.take(*gen_, input_size(1000), cancel, "job 1 partition 1");
  ASSERT_TRUE(deeper.is_ok()) << deeper.error().to_string();
  ASSERT_EQ(deeper->calculation.bytes(), need) << "the share's whole size, as before";
  auto refused = calculate(1000, *deeper);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.error().message().find("(circom error 5): Not enough memory. (cuzk's host budget had no room"),
            std::string::npos)
      << refused.error().message();
  EXPECT_GT(host.snapshot().peak, need + spare - page) << "charged up to the limit before it was refused";
  EXPECT_EQ(host.used(), deeper->calculation.bytes());
  share.give_back(*deeper);
  EXPECT_EQ(host.used(), need);
  share.done();
  EXPECT_EQ(host.used(), 0u);
}


// A witness thread's calculation (witness_ahead.hpp) refused its growth, in line from spare room
// while another job's memory holds the rest, is no result: no thread begins it again, what the
// thread reserved goes back, and its worker computes it, from its batch's share, once that memory
// is back.
TEST_F(calculation_growth_test, a_witness_threads_refused_growth_leaves_the_partition_to_its_worker) {
  const uint64_t need = calculation_estimate(*gen_, input_size(1000)).calculation;
  const uint64_t witness_bytes = 4096;
  memory_budget host("host", memory_kind::host, -1, witness_bytes + need + 2 * spare);
  reservation other_job = host.acquire(spare).value();  // the thread's growth has `spare`, 1000 frames need more
  auto j = std::make_shared<live_job>();
  j->rec.info.id = 1;
  j->rec.input_json = {true};
  std::atomic<int> thread_calculations{0};
  std::atomic<errc> thread_error{errc::ok};
  witness_ahead pool(
      {1, 0}, host, [&] { return std::vector<std::shared_ptr<live_job>>{j}; },
      [&](live_job&, uint32_t, const std::function<bool()>&, calculation_room& room) {
        auto w = calculate(1000, room);
        thread_error = w ? errc::ok : w.error().code();
        ++thread_calculations;
        return w;
      },
      [&](const live_job&) { return witness_bytes; },
      [&](const live_job&, uint32_t, uint64_t witness, refusal& why) {
        return spare_calculation_room(*gen_, input_size(1000), host, "job 1 partition 0, computed ahead", &why,
                                      witness);
      });
  pool.start();
  ASSERT_TRUE(poll_until([&] { return thread_calculations == 1 && pool.snapshot().computing == 0; }, 60s));
  EXPECT_EQ(thread_error.load(), errc::resource_exhausted) << "refused by the budget, not failed by the circuit";
  EXPECT_EQ(pool.snapshot().ready, 0u);
  EXPECT_EQ(host.used(), spare) << "the thread's witness and room back";

  other_job.reset();
  calculation_share share(host);
  share.add(host.acquire(need).value());
  const cancel_token cancel;
  const taken_witness t = pool.take(*j, 0, [&]() -> result<any_witness> {
    auto room = share.take(*gen_, input_size(1000), cancel, "job 1 partition 0");
    if (!room) return room.error();
    auto w = calculate(1000, *room);
    share.give_back(*room);
    return w;
  });
  ASSERT_TRUE(t.witness.is_ok()) << t.witness.error().to_string();
  EXPECT_FALSE(t.ahead);
  EXPECT_EQ(pool.snapshot().computed_by_worker, 1u);
  EXPECT_EQ(thread_calculations.load(), 1) << "no thread began it again";
  pool.stop();
  EXPECT_EQ(host.used(), need);
  share.done();
  EXPECT_EQ(host.used(), 0u);
}

}  // namespace
}  // namespace cuzk::engine
