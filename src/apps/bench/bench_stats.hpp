// SPDX-License-Identifier: MIT OR Apache-2.0
// The summary a benchmark row reports for its repeated runs: the median, with the minimum and the
// maximum beside it so that a noisy row shows itself (a median alone hides a bimodal device).
//
// The median of an even count is the upper of the two middle samples, an actual run (as the
// MSM row needs: its phase breakdown is that run's), not an average of two.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace cuzk::apps::bench {

struct sample_stats {
  double median = 0, min = 0, max = 0;
};

// Index of the median sample of `v` (upper median), or 0 when empty.
template <class T, class Key>
std::size_t median_index(const std::vector<T>& v, Key key) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(v[a]) < key(v[b]); });
  return order.empty() ? 0 : order[order.size() / 2];
}

inline sample_stats summarize(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

}  // namespace cuzk::apps::bench
