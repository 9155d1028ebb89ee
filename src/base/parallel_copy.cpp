// SPDX-License-Identifier: MIT OR Apache-2.0
#include "base/parallel_copy.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace cuzk {

void parallel_copy(std::span<const copy_range> ranges, unsigned threads, const copy_progress& progress,
                   std::chrono::milliseconds interval, std::size_t slice_bytes) {
  slice_bytes = std::max<std::size_t>(slice_bytes, 1);
  struct slice {
    std::byte* to;
    const std::byte* from;
    std::size_t bytes;
  };
  std::vector<slice> slices;
  std::uint64_t total = 0;
  for (const auto& r : ranges) {
    for (std::size_t off = 0; off < r.bytes; off += slice_bytes)
      slices.push_back({static_cast<std::byte*>(r.to) + off, static_cast<const std::byte*>(r.from) + off,
                        std::min(slice_bytes, r.bytes - off)});
    total += r.bytes;
  }
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(slices.size(), 1)));

  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> copied{0};
  // With progress to report, the caller reports and `threads` helpers copy; without, the caller is
  // one of the `threads`.
  const unsigned helper_count = progress ? threads : threads - 1;
  std::mutex m;
  std::condition_variable cv;
  unsigned running = 0;
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < slices.size();) {
      std::memcpy(slices[i].to, slices[i].from, slices[i].bytes);
      copied.fetch_add(slices[i].bytes, std::memory_order_relaxed);
    }
  };
  // A helper counts itself in before it starts; one that cannot be started (the system is out of
  // threads) leaves the work to the others, or to the caller when none started.
  std::vector<std::thread> helpers;
  helpers.reserve(helper_count);
  for (unsigned t = 0; t < helper_count; ++t) {
    {
      std::lock_guard lk(m);
      ++running;
    }
    try {
      helpers.emplace_back([&] {
        work();
        std::lock_guard lk(m);
        if (--running == 0) cv.notify_one();
      });
    } catch (const std::system_error&) {
      std::lock_guard lk(m);
      --running;
      break;
    }
  }
  bool reporting = static_cast<bool>(progress) && !helpers.empty();
  if (reporting) {
    std::unique_lock lk(m);
    while (!cv.wait_for(lk, interval, [&] { return running == 0; })) {
      const std::uint64_t c = copied.load(std::memory_order_relaxed);
      if (c >= total) continue;  // the end is reported once, below
      lk.unlock();
      try {
        progress(c, total);
      } catch (...) {
        reporting = false;  // a report is not worth the copy: no more of them
      }
      lk.lock();
      if (!reporting) break;
    }
  }
  work();  // what no helper took: everything when none started, else nothing or a last slice
  for (auto& h : helpers) h.join();
  if (progress) progress(total, total);
}

}  // namespace cuzk
