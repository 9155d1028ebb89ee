// SPDX-License-Identifier: MIT OR Apache-2.0
// run_chunks_on_own_threads (see own_threads.hpp).
#include "base/own_threads.hpp"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <vector>

namespace cuzk {

void run_chunks_on_own_threads(std::size_t n, std::size_t chunk, unsigned threads,
                               const std::function<void(std::size_t, std::size_t)>& body) {
  if (n == 0) return;
  chunk = std::max<std::size_t>(chunk, 1);
  const std::size_t chunks = (n + chunk - 1) / chunk;
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k = next.fetch_add(1); k < chunks; k = next.fetch_add(1))
      body(k * chunk, std::min(n, (k + 1) * chunk));
  };
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  const auto helpers =
      static_cast<unsigned>(std::min<std::size_t>({std::max(threads, 1u), hardware, chunks}) - 1);
  std::vector<std::jthread> started;
  started.reserve(helpers);
  for (unsigned i = 0; i < helpers; ++i) {
    try {
      started.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // the others, and this thread, run its chunks
    }
  }
  work();
  started.clear();  // joins
}

}  // namespace cuzk
