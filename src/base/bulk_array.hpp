// SPDX-License-Identifier: MIT OR Apache-2.0
// An owned array of trivially copyable values, left uninitialized, for buffers of hundreds of MiB
// that are written once, in full, by the caller (a witness's values copied out of its file).
//
// std::vector value-initializes: at 2^22 witness values (128 MiB) that zero fill alone was a
// single-threaded first touch of 32,768 pages before the copy touched them again (~100 ms on the
// 2-core machine, docs/gpu/proof.md 'Witness values in memory'). Here the first write is the
// caller's, which may split it across threads; and an array of 2 MiB or more is 2 MiB aligned and
// advised for transparent huge pages, so that first touch faults 2 MiB at a time where the kernel
// allows it (THP "madvise" or "always"; where it is off, the advice is ignored).
//
// Thread safety: none of its own; distinct elements may be written from distinct threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace cuzk {

// Sizes of at least this many bytes get huge-page alignment and advice.
inline constexpr std::size_t bulk_huge_page = std::size_t{2} << 20;

// Advises the kernel to back [p, p + bytes) with huge pages; no effect where it cannot.
void advise_huge_pages(void* p, std::size_t bytes) noexcept;

template <class T>
class bulk_array {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "bulk_array holds bytes written by memcpy, never constructed or destroyed");

 public:
  using value_type = T;

  bulk_array() = default;
  // n elements, uninitialized: every one must be written before it is read.
  explicit bulk_array(std::size_t n) : n_(n) {
    if (n == 0) return;
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    const std::size_t align =
        bytes >= bulk_huge_page ? bulk_huge_page : std::max(alignof(T), alignof(std::max_align_t));
    p_.reset(static_cast<T*>(::operator new (bytes, std::align_val_t{align})));
    p_.get_deleter().align = align;
    if (align == bulk_huge_page) advise_huge_pages(p_.get(), bytes);
  }

  // The n elements at byte `offset` of `bytes`, in place: the array takes over the whole block (and
  // frees it whole), without a copy. For values at a known place inside a file read whole into
  // memory (a .wtns's, engine/jobs/witness.cpp). Empty where they would not fit inside `bytes` or
  // would not be aligned for T; `bytes` is then left as it was.
  static bulk_array adopt(bulk_array<uint8_t>& bytes, std::size_t offset, std::size_t n) {
    bulk_array out;
    if (n == 0 || offset > bytes.size() || n > (bytes.size() - offset) / sizeof(T)) return out;
    uint8_t* first = bytes.data() + offset;
    if (reinterpret_cast<std::uintptr_t>(first) % alignof(T) != 0) return out;
    const auto& from = bytes.p_.get_deleter();
    const aligned_delete whole{from.align, from.lead + offset};  // frees the block from its start
    bytes.p_.release();
    bytes.n_ = 0;
    out.p_.reset(reinterpret_cast<T*>(first));
    out.p_.get_deleter() = whole;
    out.n_ = n;
    return out;
  }

  bulk_array(bulk_array&& o) noexcept : p_(std::move(o.p_)), n_(std::exchange(o.n_, 0)) {}
  bulk_array& operator=(bulk_array&& o) noexcept {
    p_ = std::move(o.p_);
    n_ = std::exchange(o.n_, 0);
    return *this;
  }

  T* data() noexcept { return p_.get(); }
  const T* data() const noexcept { return p_.get(); }
  std::size_t size() const noexcept { return n_; }
  bool empty() const noexcept { return n_ == 0; }
  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + n_; }
  const T* begin() const noexcept { return data(); }
  const T* end() const noexcept { return data() + n_; }
  T& operator[](std::size_t i) noexcept { return p_.get()[i]; }
  const T& operator[](std::size_t i) const noexcept { return p_.get()[i]; }

 private:
  template <class>
  friend class bulk_array;  // adopt() takes another's block
  struct aligned_delete {
    std::size_t align = alignof(std::max_align_t);
    std::size_t lead = 0;  // bytes of the block before the first element (adopt())
    void operator()(T* p) const noexcept {
      ::operator delete (reinterpret_cast<unsigned char*>(p) - lead, std::align_val_t{align});
    }
  };
  std::unique_ptr<T[], aligned_delete> p_;
  std::size_t n_ = 0;
};

}  // namespace cuzk
