// SPDX-License-Identifier: MIT OR Apache-2.0
// Where a proving key's "hot" copy lives: the allocator interface of the hot tier.
//
// The hot tier is a key fully copied into host memory, so that no page of it can be dropped from
// the page cache and faulted back in mid-proof. Where there is a GPU that memory should be pinned
// (page-locked: gpu/locked_host_memory.hpp), so uploads to the device run at full PCIe speed
// (55.5 GB/s pinned against 8.2 GB/s pageable on the H200, docs/BENCHMARKS.md, 'Reference points'). The GPU backend brings
// that allocator (backends/gpu_pinned_allocator.hpp, over the page-locked memory gpu/ owns) and
// backend_select hands it to the engine; without the GPU prover the engine uses
// pageable_allocator, and the key manager reports the tier as "hot(pageable)", never as pinned.
//
// Thread safety: allocate() from any thread; a host_block is owned by one holder.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "base/result.hpp"

namespace cuzk::engine {

// An owned, 64-byte aligned block; frees itself through the allocator's deleter.
class host_block {
 public:
  host_block() = default;
  host_block(void* p, std::size_t n, std::function<void(void*)> free_fn)
      : p_(p), n_(n), free_(std::move(free_fn)) {}
  ~host_block() { reset(); }
  host_block(host_block&& o) noexcept : p_(o.p_), n_(o.n_), free_(std::move(o.free_)) {
    o.p_ = nullptr;
    o.n_ = 0;
  }
  host_block& operator=(host_block&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = o.p_;
      n_ = o.n_;
      free_ = std::move(o.free_);
      o.p_ = nullptr;
      o.n_ = 0;
    }
    return *this;
  }
  host_block(const host_block&) = delete;
  host_block& operator=(const host_block&) = delete;

  void* data() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }

 private:
  void reset() noexcept {
    if (p_ && free_) free_(p_);
    p_ = nullptr;
  }
  void* p_ = nullptr;
  std::size_t n_ = 0;
  std::function<void(void*)> free_;
};

class host_allocator {
 public:
  virtual ~host_allocator() = default;
  // "pageable" or "pinned": shown in the tier name, "hot(pageable)".
  virtual const char* kind() const noexcept = 0;
  virtual result<host_block> allocate(std::size_t bytes) = 0;
};

// Ordinary memory (aligned_alloc).
class pageable_allocator final : public host_allocator {
 public:
  const char* kind() const noexcept override { return "pageable"; }
  result<host_block> allocate(std::size_t bytes) override;
};

}  // namespace cuzk::engine
