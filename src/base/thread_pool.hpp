// SPDX-License-Identifier: MIT OR Apache-2.0
// A fixed pool of worker threads with a blocking parallel_for.
//
// NTT, MSM and synthesis all split one large loop over the cores; they share this pool rather
// than each spawning threads per call (thread creation costs ~20-50 us, which matters for the
// many small NTT passes of a proof). The calling thread works too, so a pool of size 1 runs
// everything inline. A parallel_for issued from inside a worker runs inline as well, so nested
// parallel code cannot deadlock the pool.
//
// Thread safety: parallel_for may be called from any thread; concurrent calls are serialized.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cuzk {

class thread_pool {
 public:
  // threads = total parallelism including the caller; 0 means std::thread::hardware_concurrency().
  explicit thread_pool(unsigned threads = 0);
  ~thread_pool();
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;

  unsigned size() const noexcept { return static_cast<unsigned>(workers_.size()) + 1; }

  // Calls body(begin, end) over disjoint chunks covering [0, n); returns when all are done.
  // Chunks are at least min_chunk long (amortizes the per-chunk overhead on cheap bodies).
  void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body,
                    std::size_t min_chunk = 1);

  // The process-wide pool, sized by set_global_threads() (the CLI's --threads) or, by default,
  // by the CUZK_THREADS environment variable or the hardware.
  static thread_pool& global();
  // Must be called before the first global() to take effect; returns false afterwards.
  static bool set_global_threads(unsigned threads);

 private:
  void worker_loop();
  void run_chunks();

  std::vector<std::thread> workers_;
  std::mutex call_mutex_;  // one parallel_for at a time

  std::mutex m_;
  std::condition_variable start_cv_, done_cv_;
  const std::function<void(std::size_t, std::size_t)>* body_ = nullptr;
  std::size_t n_ = 0, chunk_ = 1, next_ = 0, chunks_left_ = 0;
  unsigned generation_ = 0;
  bool stop_ = false;
};

}  // namespace cuzk
