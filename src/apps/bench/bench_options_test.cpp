// SPDX-License-Identifier: MIT OR Apache-2.0
// The benchmarks' option checks (bench_options.hpp) at the edges of every range, and the row
// summary (bench_stats.hpp) against a sort done here. No GPU needed.
#include "apps/bench/bench_options.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "apps/bench/bench_stats.hpp"

namespace cuzk::apps::bench {
namespace {

template <class O>
O with_sizes(std::vector<unsigned> sizes) {
  O o;
  o.log_sizes = std::move(sizes);
  return o;
}

TEST(BenchOptions, SizeRangesAtTheirEdges) {
  EXPECT_TRUE(validate(with_sizes<ntt_bench_options>({ntt_min_log, ntt_max_log})).is_ok());
  EXPECT_FALSE(validate(with_sizes<ntt_bench_options>({0})).is_ok());
  EXPECT_FALSE(validate(with_sizes<ntt_bench_options>({20, ntt_max_log + 1})).is_ok());
  EXPECT_FALSE(validate(with_sizes<ntt_bench_options>({})).is_ok());

  auto g1 = with_sizes<msm_bench_options>({msm_max_log_g1});
  EXPECT_TRUE(validate(g1).is_ok());
  g1.group = msm_group::g2;  // G2 stops lower
  EXPECT_FALSE(validate(g1).is_ok());
  EXPECT_NE(validate(g1).message().find("expected 1.." + std::to_string(msm_max_log_g2)), std::string::npos)
      << validate(g1).message();
  g1.log_sizes = {msm_max_log_g2};
  EXPECT_TRUE(validate(g1).is_ok());

  EXPECT_TRUE(validate(with_sizes<prove_bench_options>({prove_min_log, prove_max_log})).is_ok());
  EXPECT_FALSE(validate(with_sizes<prove_bench_options>({prove_min_log - 1})).is_ok());
  EXPECT_FALSE(validate(with_sizes<prove_bench_options>({prove_max_log + 1})).is_ok());
}

TEST(BenchOptions, RepsDeviceAndLists) {
  auto o = with_sizes<msm_bench_options>({10});
  o.reps = 0;
  EXPECT_NE(validate(o).message().find("--reps"), std::string::npos);
  o.reps = max_reps;
  EXPECT_TRUE(validate(o).is_ok());
  o.reps = max_reps + 1;
  EXPECT_FALSE(validate(o).is_ok());
  o.reps = 1;
  o.device = -1;
  EXPECT_NE(validate(o).message().find("--device"), std::string::npos);
  o.device = 0;
  o.chunks = {0, 64};
  EXPECT_TRUE(validate(o).is_ok());
  o.chunks = {65};
  EXPECT_NE(validate(o).message().find("--chunks"), std::string::npos);
  o.chunks = {};
  EXPECT_FALSE(validate(o).is_ok());
  o.chunks = {0};
  for (const double fine : {0.0, 0.9, 1.0}) {
    o.zero_one_share = fine;
    EXPECT_TRUE(validate(o).is_ok()) << fine;
  }
  for (const double bad : {-0.1, 1.5, std::nan("")}) {
    o.zero_one_share = bad;
    EXPECT_NE(validate(o).message().find("--zero-one: expected a share from 0 to 1"), std::string::npos) << bad;
  }
  o.zero_one_share = 0;
  auto p = with_sizes<prove_bench_options>({10});
  p.chunk_points = max_chunk_points;
  EXPECT_TRUE(validate(p).is_ok());
  p.chunk_points = max_chunk_points + 1;
  EXPECT_NE(validate(p).message().find("--chunk-points: expected 0.."), std::string::npos) << validate(p).message();
  p.chunk_points = 0;
  p.partitions = max_partitions;
  EXPECT_TRUE(validate(p).is_ok());
  for (const unsigned bad : {0u, max_partitions + 1}) {
    p.partitions = bad;
    EXPECT_NE(validate(p).message().find("--partitions: expected 1..64"), std::string::npos) << validate(p).message();
  }
  // The prove default is 5 repetitions, the others 7.
  EXPECT_EQ(prove_bench_options{}.reps, 5u);
  EXPECT_EQ(ntt_bench_options{}.reps, 7u);
}

TEST(BenchStats, MedianMinMaxAgainstASort) {
  EXPECT_EQ(summarize({}).median, 0.0);
  const sample_stats one = summarize({3.5});
  EXPECT_EQ(one.median, 3.5);
  EXPECT_EQ(one.min, 3.5);
  EXPECT_EQ(one.max, 3.5);
  // An even count takes the upper middle sample: a run that happened.
  EXPECT_EQ(summarize({4, 1, 3, 2}).median, 3.0);
  std::mt19937_64 rng(7);
  for (std::size_t n = 1; n < 40; ++n) {
    std::vector<double> v(n);
    for (auto& x : v) x = static_cast<double>(rng() % 1000) / 7;
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    const sample_stats s = summarize(v);
    EXPECT_EQ(s.median, sorted[n / 2]);
    EXPECT_EQ(s.min, sorted.front());
    EXPECT_EQ(s.max, sorted.back());
    // The median run's index points at a sample equal to the median.
    EXPECT_EQ(v[median_index(v, [](double x) { return x; })], s.median);
  }
}

}  // namespace
}  // namespace cuzk::apps::bench
