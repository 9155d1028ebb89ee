// The batch prover (gpu_batch_prover.hpp) against the CPU prover: every partition's proof equals
// the CPU's for its own witness, r and s, bit for bit, on both curves, with the key resident, with
// every vector streamed in ranges that do not divide n, and with synthesis on the host (three of
// a, b, c on the device, and two); the one
// satisfying witness's proof verifies. The others are valid field elements that satisfy nothing
// (the prover does not check, so each still has one right answer), among them a witness of zeros:
// a batch that mixed up its partitions' scalars or buckets would give another partition's points.
#include "groth16/gpu/gpu_batch_prover.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
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

}  // namespace
}  // namespace cuzk::groth16
