// SPDX-License-Identifier: MIT OR Apache-2.0
// parallel_copy: copies a few large ranges on threads of its own, reporting progress.
//
// For copies of many GiB that happen once, off any proof's path: a key's hot copy at preload
// (engine/keys/loaded_key.cpp). One thread moves ~6 GB/s and, reading a freshly mapped zkey,
// waits on each page fault in turn; sixteen move 16 GiB in 0.26 s on the H200 machine and fault in
// parallel. It does not use thread_pool::global(): that pool runs one parallel_for at a time, and
// a copy of seconds there would stall the proofs' own loops behind it.
//
// Thread safety: a free function; `progress` is called on the calling thread only.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace cuzk {

struct copy_range {
  void* to = nullptr;
  const void* from = nullptr;
  std::size_t bytes = 0;
};

// progress(copied, total): every `interval` while the copy runs (copied < total), and once at the
// end with copied == total. Empty: no reports. One that throws during the copy is not called
// again until the end's report, whose exception reaches the caller (every thread joined by then).
using copy_progress = std::function<void(std::uint64_t copied, std::uint64_t total)>;

// Copies every range (no destination may overlap another range) in slices of `slice_bytes` on
// `threads` threads (0: one per hardware thread). Without progress the caller is one of them;
// with it, the caller reports while they copy. Threads the system refuses to start are done
// without: the caller copies what is left.
void parallel_copy(std::span<const copy_range> ranges, unsigned threads = 0, const copy_progress& progress = {},
                   std::chrono::milliseconds interval = std::chrono::seconds(2),
                   std::size_t slice_bytes = std::size_t{64} << 20);

}  // namespace cuzk
