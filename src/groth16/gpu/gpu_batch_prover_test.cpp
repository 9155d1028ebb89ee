// SPDX-License-Identifier: MIT OR Apache-2.0
// The batch prover (gpu_batch_prover.hpp) against the CPU prover: every partition's proof equals
// the CPU's for its own witness, r and s, bit for bit, on both curves, with the key resident, with
// every vector streamed in ranges that do not divide n, and with synthesis on the host (three of
// a, b, c on the device, and two); the one
// satisfying witness's proof verifies. The others are valid field elements that satisfy nothing
// (the prover does not check, so each still has one right answer), among them a witness of zeros:
// a batch that mixed up its partitions' scalars or buckets would give another partition's points.
// Witnesses that arrive while the batch runs (prove_batch_from): the same proofs, streamed and
// resident; a source that fails at a partition mid-batch ends the batch with its error.
#include "groth16/gpu/gpu_batch_prover.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "groth16/circuit_io.hpp"
#include "groth16/gpu/gpu_prover_test_util.hpp"
#include "groth16/prover.hpp"
#include "groth16/prover_choice.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "synth/synthetic_circuit.hpp"

namespace cuzk::groth16 {
namespace {

template <class C>
class gpu_batch_prover_test : public ::testing::Test {};
TYPED_TEST_SUITE(gpu_batch_prover_test, test::both_curves);

TYPED_TEST(gpu_batch_prover_test, every_partition_equals_the_cpu_proof_of_its_witness) {
  CUZK_REQUIRE_GPU();
  using C = TypeParam;
  using Fr = typename C::fr;
  using repr = typename Fr::repr;
  const auto circuit = synth::make_synthetic_circuit<Fr>(10, synth::witness_kind::mostly_boolean, 41);
  auto dk = development_setup<C>(circuit.cs);
  ASSERT_TRUE(dk.is_ok()) << dk.error().to_string();
  auto pk_owned = proving_key<C>::from_key_data(dk->key);
  ASSERT_TRUE(pk_owned.is_ok()) << pk_owned.error().to_string();
  const auto& pk = pk_owned->view();

  std::mt19937_64 rng(4242);
  std::vector<std::vector<repr>> ws;
  ws.push_back(circuit.witness);  // satisfying
  std::vector<repr> other(circuit.witness.size()), zeros(circuit.witness.size());
  for (auto& x : other) x = (rng() % 3 == 0 ? Fr::random(rng) : Fr::from_uint(rng() % 2)).to_canonical();
  other[0] = Fr::one().to_canonical();
  zeros[0] = Fr::one().to_canonical();
  ws.push_back(other);
  ws.push_back(zeros);
  ws.push_back(circuit.witness);
  std::vector<std::span<const repr>> spans(ws.begin(), ws.end());
  std::vector<Fr> r, s;
  for (std::size_t p = 0; p < ws.size(); ++p) {
    r.push_back(p == 0 ? Fr::zero() : Fr::random(rng));
    s.push_back(p == 0 ? Fr::zero() : Fr::random(rng));
  }
  std::vector<formats::proof<C>> want;
  for (std::size_t p = 0; p < ws.size(); ++p) {
    auto cpu = prove_with<C>(pk, ws[p], r[p], s[p]);
    ASSERT_TRUE(cpu.is_ok()) << cpu.error().to_string();
    want.push_back(*cpu);
  }

  struct config {
    std::string name;
    gpu_key_options options;
  };
  std::vector<config> configs;
  configs.push_back({"resident", {}});
  for (const std::size_t chunk : {std::size_t{100}, std::size_t{333}}) {
    gpu_key_options o;
    o.streamed = key_vector_set::all();
    o.stream_chunk_points = chunk;
    configs.push_back({"streamed in ranges of " + std::to_string(chunk), o});
  }
  configs.push_back({"streamed in ranges of 333, B2 in turn", configs.back().options});
  configs.back().options.b2_beside = false;
  configs.push_back({"synthesis on the host, H streamed", gpu_key_options(synthesis_place::host_pinned)});
  configs.back().options.streamed = key_vector_set().with(key_vector::h);
  configs.back().options.stream_chunk_points = 257;
  configs.push_back({"synthesis on the host, two of a, b, c on the device, all streamed",
                     gpu_key_options(synthesis_place::host_pinned)});
  configs.back().options.abc = abc_on_device::two;
  configs.back().options.streamed = key_vector_set::all();
  configs.back().options.stream_chunk_points = 333;
  configs.push_back({"synthesis on the device, two of a, b, c on the device, all streamed", {}});
  configs.back().options.abc = abc_on_device::two;
  configs.back().options.streamed = key_vector_set::all();
  configs.back().options.stream_chunk_points = 333;
  for (const auto& cfg : configs) {
    SCOPED_TRACE(cfg.name);
    auto gk = gpu_proving_key<C>::create(pk, 0, cfg.options);
    ASSERT_TRUE(gk.is_ok()) << gk.error().to_string();
    for (int round = 0; round < 2; ++round) {  // the second on the arenas the first grew
      phase_timings t;
      auto got = prove_batch_with<C>(pk, spans, r, s, &t, gpu_context<C>{*gk});
      ASSERT_TRUE(got.is_ok()) << got.error().to_string();
      ASSERT_EQ(got->size(), ws.size());
      for (std::size_t p = 0; p < ws.size(); ++p) EXPECT_EQ((*got)[p], want[p]) << "partition " << p;
      const status v = verify<C>(dk->vk, public_signals_of<C>(ws[0], pk.n_public), (*got)[0]);
      EXPECT_TRUE(v.is_ok()) << v.to_string();
      EXPECT_GT(t.total, 0.0);
      EXPECT_GT(t.lock_held, 0.0);
    }
    EXPECT_GT(batch_device_bytes<C>(pk, *gk, ws.size()), ws.size() * (pk.n_vars + pk.domain_size) * sizeof(repr) - 1);
    // An estimate for batches of this size (what a budget's fit counts) is one proof's plus
    // what the batch adds.
    gpu_key_options as_made = cfg.options;
    as_made.stream_chunk_points = gk->stream_chunk_points();
    as_made.twiddles = gk->twiddles();
    as_made.b2_beside = gk->b2_beside();
    EXPECT_EQ(gk->abc(), cfg.options.abc);
    const std::size_t one_proof = estimate_device_bytes<C>(pk, as_made, gk->streamed());
    as_made.batch_partitions = static_cast<unsigned>(ws.size());
    EXPECT_EQ(estimate_device_bytes<C>(pk, as_made, gk->streamed()),
              one_proof + batch_device_bytes<C>(pk, *gk, ws.size()));
  }

  // Refusals name what is wrong, and the key still proves after them.
  auto gk = gpu_proving_key<C>::create(pk, 0, {});
  ASSERT_TRUE(gk.is_ok());
  auto short_r = prove_batch_with<C>(pk, spans, std::span<const Fr>(r).first(2), s, nullptr, gpu_context<C>{*gk});
  ASSERT_FALSE(short_r.is_ok());
  EXPECT_EQ(short_r.error().code(), errc::invalid_argument);
  std::vector<repr> cut(circuit.witness.begin(), circuit.witness.end() - 1);
  std::vector<std::span<const repr>> bad = {spans[0], cut};
  auto wrong = prove_batch_with<C>(pk, bad, std::span<const Fr>(r).first(2), std::span<const Fr>(s).first(2), nullptr,
                                   gpu_context<C>{*gk});
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_NE(wrong.error().to_string().find("partition 1"), std::string::npos) << wrong.error().to_string();
  auto empty = prove_batch_with<C>(pk, {}, {}, {}, nullptr, gpu_context<C>{*gk});
  ASSERT_TRUE(empty.is_ok());
  EXPECT_TRUE(empty->empty());
  auto one = prove_batch_with<C>(pk, std::span(spans).first(1), std::span<const Fr>(r).first(1),
                                 std::span<const Fr>(s).first(1), nullptr, gpu_context<C>{*gk});
  ASSERT_TRUE(one.is_ok()) << one.error().to_string();
  EXPECT_EQ((*one)[0], want[0]);
}

// Witnesses arriving one by one from another thread, later than the batch asks for them: each
// partition's proof is still the CPU's, with the key resident and streamed, with synthesis on the
// device and on the host; a source that fails at partition 2 ends the batch with that error, and
// the key proves again afterwards.
TYPED_TEST(gpu_batch_prover_test, witnesses_that_arrive_during_the_batch_give_the_same_proofs) {
  CUZK_REQUIRE_GPU();
  using C = TypeParam;
  using Fr = typename C::fr;
  using repr = typename Fr::repr;
  const auto circuit = synth::make_synthetic_circuit<Fr>(9, synth::witness_kind::mostly_boolean, 43);
  auto dk = development_setup<C>(circuit.cs);
  ASSERT_TRUE(dk.is_ok()) << dk.error().to_string();
  auto pk_owned = proving_key<C>::from_key_data(dk->key);
  ASSERT_TRUE(pk_owned.is_ok()) << pk_owned.error().to_string();
  const auto& pk = pk_owned->view();
  std::mt19937_64 rng(4343);
  constexpr std::size_t parts = 5;
  std::vector<std::vector<repr>> ws(parts, circuit.witness);
  for (std::size_t p = 1; p < parts; ++p)
    for (std::size_t i = 1 + pk.n_public; i < ws[p].size(); ++i)
      ws[p][i] = (rng() % 4 == 0 ? Fr::random(rng) : Fr::from_uint(rng() % 2)).to_canonical();
  std::vector<Fr> r(parts), s(parts);
  std::vector<formats::proof<C>> want;
  for (std::size_t p = 0; p < parts; ++p) {
    r[p] = Fr::random(rng);
    s[p] = Fr::random(rng);
    auto cpu = prove_with<C>(pk, ws[p], r[p], s[p]);
    ASSERT_TRUE(cpu.is_ok()) << cpu.error().to_string();
    want.push_back(*cpu);
  }

  // A witness is read only once the batch asks for it (10 ms, on another thread), so every one is
  // late: the batch must wait for each outside the kernel gate (another proof could use the
  // device meanwhile), after it has transformed every partition before (one "ntt_h" turn each, on
  // the thread that waits): a prover that waited for every witness first fails that. `fail_at`'s
  // read fails.
  struct late_source {
    std::vector<std::atomic<bool>> there;
    std::vector<std::jthread> reads;
    explicit late_source(std::size_t n) : there(n) {}
  };
  auto source_of = [&](late_source& ls, std::size_t fail_at, kernel_gate& gate, const phase_timings& t) {
    batch_witness_source<C> src;
    src.count = parts;
    src.ready = [&ls](std::size_t p) { return ls.there[p].load(); };
    src.wait = [&, fail_at](std::size_t p) -> result<std::span<const repr>> {
      EXPECT_FALSE(ls.there[p].load());
      if (gate.try_lock())
        gate.unlock();
      else
        ADD_FAILURE() << "partition " << p << ": waited for while the batch held the kernel gate";
      std::size_t turns = 0;
      for (const auto& span : t.kernel_spans) turns += std::string_view(span.name) == "ntt_h" ? 1 : 0;
      EXPECT_GE(turns, p) << "partition " << p << " waited for before the partitions ahead of it were transformed";
      ls.reads.emplace_back([&ls, p] {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        ls.there[p].store(true);
      });
      while (!ls.there[p].load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (p == fail_at) return status(errc::io_error, "partition " + std::to_string(p) + ": the file was cut short");
      return std::span<const repr>(ws[p]);
    };
    return src;
  };

  std::vector<gpu_key_options> configs(3);
  configs[1].streamed = key_vector_set::all();
  configs[1].stream_chunk_points = 100;
  configs[2] = gpu_key_options(synthesis_place::host_pinned);
  configs[2].streamed = key_vector_set().with(key_vector::h).with(key_vector::b2);
  configs[2].stream_chunk_points = 77;
  for (std::size_t k = 0; k < configs.size(); ++k) {
    SCOPED_TRACE("configuration " + std::to_string(k));
    auto gate = std::make_shared<kernel_gate>();
    configs[k].kernel_lock = gate;
    auto gk = gpu_proving_key<C>::create(pk, 0, configs[k]);
    ASSERT_TRUE(gk.is_ok()) << gk.error().to_string();
    {
      late_source ls(parts);
      phase_timings t;
      auto got = prove_batch_from<C>(pk, source_of(ls, parts, *gate, t), r, s, &t, gpu_context<C>{*gk});
      ASSERT_TRUE(got.is_ok()) << got.error().to_string();
      ASSERT_EQ(got->size(), parts);
      for (std::size_t p = 0; p < parts; ++p) EXPECT_EQ((*got)[p], want[p]) << "partition " << p;
      EXPECT_GE(t.witness, 0.01 * parts) << "the waits for the witnesses count as staging";
    }
    {
      late_source ls(parts);
      phase_timings t;
      auto failed = prove_batch_from<C>(pk, source_of(ls, 2, *gate, t), r, s, &t, gpu_context<C>{*gk});
      ASSERT_FALSE(failed.is_ok());
      EXPECT_EQ(failed.error().code(), errc::io_error);
      EXPECT_NE(failed.error().to_string().find("partition 2: the file was cut short"), std::string::npos)
          << failed.error().to_string();
    }
    // A witness of the wrong length, arriving third, names its partition.
    std::vector<repr> cut(ws[0].begin(), ws[0].end() - 1);
    batch_witness_source<C> short_one;
    short_one.count = parts;
    short_one.wait = [&](std::size_t p) -> result<std::span<const repr>> {
      return p == 2 ? std::span<const repr>(cut) : std::span<const repr>(ws[p]);
    };
    auto wrong = prove_batch_from<C>(pk, short_one, r, s, nullptr, gpu_context<C>{*gk});
    ASSERT_FALSE(wrong.is_ok());
    EXPECT_NE(wrong.error().to_string().find("partition 2"), std::string::npos) << wrong.error().to_string();
    // And the key proves again, from spans.
    std::vector<std::span<const repr>> spans(ws.begin(), ws.end());
    auto again = prove_batch_with<C>(pk, spans, r, s, nullptr, gpu_context<C>{*gk});
    ASSERT_TRUE(again.is_ok()) << again.error().to_string();
    for (std::size_t p = 0; p < parts; ++p) EXPECT_EQ((*again)[p], want[p]) << "partition " << p;
  }
}

}  // namespace
}  // namespace cuzk::groth16
