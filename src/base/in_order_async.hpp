// SPDX-License-Identifier: MIT OR Apache-2.0
// Runs a few long tasks at once on threads of their own and hands back their results in index
// order. For work that is long and heavy on memory per task (reading and checking a witness file of
// GiBs), where thread_pool's parallel_for (one call at a time, over short CPU-bound chunks) does not
// fit: `at_once` bounds both the threads and the memory the tasks hold together.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

namespace cuzk {

// body(i) for every i in [0, n), at most `at_once` (>= 1) of them running on other threads at a
// time; an i for which on_caller(i) is true runs on the calling thread instead, in its turn (for
// work that gains nothing from another thread). Where no thread can be started, the calling thread
// runs the task itself. Results in index order. body must not throw.
template <class T>
std::vector<T> in_order_async(std::size_t n, std::size_t at_once, const std::function<T(std::size_t)>& body,
                              const std::function<bool(std::size_t)>& on_caller = nullptr) {
  if (at_once == 0) at_once = 1;
  std::vector<std::optional<T>> got(n);
  std::deque<std::pair<std::size_t, std::future<T>>> running;
  auto finish_oldest = [&] {
    got[running.front().first].emplace(running.front().second.get());
    running.pop_front();
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (on_caller && on_caller(i)) {
      got[i].emplace(body(i));
      continue;
    }
    if (running.size() == at_once) finish_oldest();
    try {
      running.emplace_back(i, std::async(std::launch::async, body, i));
    } catch (const std::system_error&) {  // no thread to be had now: this one runs it
      got[i].emplace(body(i));
    }
  }
  while (!running.empty()) finish_oldest();
  std::vector<T> out;
  out.reserve(n);
  for (auto& r : got) out.push_back(std::move(*r));
  return out;
}

}  // namespace cuzk
