// SPDX-License-Identifier: MIT OR Apache-2.0
#include "gpu/locked_host_memory.hpp"

#include <cuda_runtime_api.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "gpu/cuda_check.hpp"

namespace cuzk::gpu {
namespace {

// Transparent huge pages need a 2 MiB-aligned range; with them the first touch faults 512 times
// fewer and the registration walks 512 times fewer page entries.
constexpr std::size_t huge_page = std::size_t{2} << 20;
constexpr std::size_t small_page = 4096;
// Below this a thread of its own costs more than the faults it takes over.
constexpr std::size_t bytes_per_thread = std::size_t{64} << 20;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// An anonymous private mapping of `len` bytes (a multiple of huge_page) starting on a huge_page
// boundary: `len` + one huge page mapped, the ends that miss the boundary given back.
void* map_aligned(std::size_t len) {
  void* raw = mmap(nullptr, len + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const auto aligned = round_up(start, huge_page);
  if (aligned > start) munmap(raw, aligned - start);
  const std::size_t tail = start + len + huge_page - (aligned + len);
  if (tail > 0) munmap(reinterpret_cast<void*>(aligned + len), tail);
  return reinterpret_cast<void*>(aligned);
}

// One write per small page, in contiguous slices across threads: the kernel zeroes and maps the
// pages on the faulting thread, so this is where the cores help.
void touch_pages(std::byte* p, std::size_t len, unsigned threads) {
  const std::size_t pages = len / small_page;
  auto slice = [&](unsigned t) {
    const std::size_t begin = pages * t / threads, end = pages * (t + 1) / threads;
    for (std::size_t i = begin; i < end; ++i) reinterpret_cast<volatile std::byte*>(p)[i * small_page] = std::byte{0};
  };
  // A thread the system refuses to start leaves its slices to the caller.
  std::vector<std::thread> helpers;
  helpers.reserve(threads - 1);
  unsigned t = 1;
  for (; t < threads; ++t) {
    try {
      helpers.emplace_back(slice, t);
    } catch (const std::system_error&) {
      break;
    }
  }
  for (unsigned own = t; own < threads; ++own) slice(own);
  slice(0);
  for (auto& h : helpers) h.join();
}

}  // namespace

result<locked_host_memory> locked_host_memory::create(std::size_t bytes, unsigned threads) {
  locked_host_memory m;
  if (bytes == 0) return result<locked_host_memory>(std::move(m));
  if (bytes > std::numeric_limits<std::size_t>::max() - 2 * huge_page)
    return status(errc::invalid_argument, "locked host memory: " + std::to_string(bytes) + " bytes is more than can be mapped");
  const std::size_t len = round_up(bytes, huge_page);
  void* p = map_aligned(len);
  if (p == nullptr) {
    const int why = errno;
    return status(errc::resource_exhausted, "locked host memory: mapping " + std::to_string(bytes) +
                                                " bytes failed: " + std::strerror(why));
  }
  (void)madvise(p, len, MADV_HUGEPAGE);  // advice: refused where THP is off, and then 4 KiB pages do
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::clamp<std::size_t>(len / bytes_per_thread, 1, threads));
  touch_pages(static_cast<std::byte*>(p), len, threads);
  const cudaError_t err = cudaHostRegister(p, len, cudaHostRegisterPortable | cudaHostRegisterMapped);
  if (err != cudaSuccess) {
    munmap(p, len);
    const status why = cuda_status(err, "cudaHostRegister(block, bytes, portable | mapped)", __FILE__, __LINE__);
    return status(err == cudaErrorMemoryAllocation ? errc::resource_exhausted : why.code(),
                  "locked host memory: locking " + std::to_string(bytes) + " bytes: " + why.message());
  }
  m.ptr_ = p;
  m.bytes_ = bytes;
  m.mapped_ = len;
  return result<locked_host_memory>(std::move(m));
}

void locked_host_memory::release() noexcept {
  if (ptr_ == nullptr) return;
  // Nothing to report to from a destructor (the runtime may be gone at exit); the error is cleared
  // so that the thread's next launch check does not take it for its own, and the mapping goes anyway.
  if (cudaHostUnregister(ptr_) != cudaSuccess) (void)cudaGetLastError();
  munmap(ptr_, mapped_);
  ptr_ = nullptr;
  bytes_ = 0;
  mapped_ = 0;
}

}  // namespace cuzk::gpu
