// SPDX-License-Identifier: MIT OR Apache-2.0
#include "base/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>

namespace cuzk {
namespace {

thread_local bool in_worker = false;
std::atomic<unsigned> requested_global_threads{0};
std::atomic<bool> global_created{false};

}  // namespace

thread_pool::thread_pool(unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  workers_.reserve(threads - 1);
  for (unsigned i = 0; i + 1 < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

thread_pool::~thread_pool() {
  {
    std::lock_guard lock(m_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void thread_pool::run_chunks() {
  for (;;) {
    std::size_t begin;
    {
      std::lock_guard lock(m_);
      if (next_ >= n_) return;
      begin = next_;
      next_ = std::min(n_, next_ + chunk_);
    }
    (*body_)(begin, std::min(n_, begin + chunk_));
    std::lock_guard lock(m_);
    if (--chunks_left_ == 0) done_cv_.notify_all();
  }
}

void thread_pool::worker_loop() {
  in_worker = true;
  unsigned seen = 0;
  for (;;) {
    {
      std::unique_lock lock(m_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    run_chunks();
  }
}

void thread_pool::parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body,
                               std::size_t min_chunk) {
  if (n == 0) return;
  // Inline when there is nothing to share or when already on a worker (nested parallelism).
  if (workers_.empty() || in_worker || n <= min_chunk) {
    body(0, n);
    return;
  }
  std::lock_guard call(call_mutex_);
  {
    std::lock_guard lock(m_);
    body_ = &body;
    n_ = n;
    // ~4 chunks per thread balances uneven chunks without much locking.
    chunk_ = std::max<std::size_t>(min_chunk, (n + 4 * size() - 1) / (4 * size()));
    next_ = 0;
    chunks_left_ = (n + chunk_ - 1) / chunk_;
    ++generation_;
  }
  start_cv_.notify_all();
  in_worker = true;  // nested calls from the caller's own chunks run inline too
  run_chunks();
  in_worker = false;
  std::unique_lock lock(m_);
  done_cv_.wait(lock, [&] { return chunks_left_ == 0; });
  body_ = nullptr;
}

thread_pool& thread_pool::global() {
  static thread_pool pool([] {
    global_created = true;
    if (unsigned t = requested_global_threads.load()) return t;
    if (const char* env = std::getenv("CUZK_THREADS")) {
      const int v = std::atoi(env);
      if (v > 0) return static_cast<unsigned>(v);
    }
    return 0u;
  }());
  return pool;
}

bool thread_pool::set_global_threads(unsigned threads) {
  if (global_created) return false;
  requested_global_threads = threads;
  return true;
}

}  // namespace cuzk
