// SPDX-License-Identifier: MIT OR Apache-2.0
// A proving key in memory, in one residency tier, ready for a prover backend.
//
// Tiers, fastest first (docs/ARCHITECTURE.md, 'Glossary'): device (VRAM) > hot (host memory) > warm
// (the mapped file in the page cache) > cold (on disk, nothing mapped; no loaded_key exists). A loaded_key is
// one of warm or hot:
//   warm  formats::zkey maps the file (or, with a copy_dir, a private copy of it made there: a
//         daemon must own the bytes it serves, since a mapped file truncated by someone else
//         kills the process with SIGBUS on the next page it reads; see
//         formats::mapped_file::open_private_copy); the point sections are used in place. In a
//         mapping of the file, the misaligned ones are copied once by the zkey reader (zkey.hpp);
//         the private copy is laid out with every section aligned (binfile::open_aligned_copy),
//         which saves those copies (A, B2 and H, or B1 and C, by the parity of the number of
//         coefficients: at 2^26 on BLS12-381, 24 or 12 GiB). mapped_bytes =
//         the file (the copy: a few bytes of padding more), owned_bytes = the zkey reader's copies
//         plus the constraint matrices.
//   hot   the five point sections copied into one block from a host_allocator; nothing is mapped.
//         owned_bytes = that block plus the matrices. Pinned when the allocator is.
// The device tier belongs to the GPU backend (it needs device buffers and a stream); the key
// manager reports it absent when its budget is 0.
//
// Both tiers share the constraint matrices (built once from the zkey's coefficient section, the
// costly part of a load) and the verification key, so moving a key between tiers never rebuilds
// them. Loading checks what formats::zkey::open checks (header, primes, section sizes, header and
// IC points) plus every coefficient record; with check_points, every point of sections 5..9 is
// also checked to be on its curve (not the subgroup: that costs a scalar multiplication per point).
//
// Thread safety: immutable once built; any number of workers may prove with it concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>

#include "base/parallel_copy.hpp"
#include "base/result.hpp"
#include "curves/bls12_381_groups.hpp"
#include "curves/bn254_groups.hpp"
#include "engine/jobs/key_summary.hpp"
#include "engine/memory/host_allocator.hpp"
#include "formats/verification_key.hpp"
#include "formats/zkey.hpp"
#include "groth16/proving_key.hpp"
#include "synth/constraint_matrices.hpp"

namespace cuzk::engine {

// Persisted in status output; higher is faster.
enum class key_tier : uint8_t { cold = 0, warm = 1, hot = 2, device = 3 };
const char* key_tier_name(key_tier t) noexcept;  // "cold", "warm", "hot", "device"

template <class C>
struct key_material {
  std::shared_ptr<const formats::zkey<C>> zk;  // warm: the mapping the view points into; null when hot
  std::shared_ptr<const synth::constraint_matrices<typename C::fr>> matrices;
  std::shared_ptr<const formats::verification_key<C>> vk;
  host_block points;  // hot: a, b1, b2, c, h copied
  groth16::proving_key_view<C> view;
};

enum class point_check { skip, on_curve };

class loaded_key {
 public:
  // Opens and checks the zkey and builds its matrices: the warm tier. With a copy_dir the key is
  // first copied there (see above); empty: the file is mapped in place.
  // `step` hears of each part as it ends: "private copy" (with a copy_dir) or "map", "point
  // check", "matrices", with the bytes it covered and its seconds.
  using step_done = std::function<void(const char* step, uint64_t bytes, double seconds)>;
  static result<std::shared_ptr<const loaded_key>> load_warm(const std::string& path,
                                                             const key_summary& expect, point_check check,
                                                             const std::string& copy_dir = {},
                                                             const step_done& step = {});
  // The same key copied into memory from `alloc` (from either tier), on every core
  // (base/parallel_copy.hpp); `progress` hears of the copy's bytes every 2 s, on this thread.
  static result<std::shared_ptr<const loaded_key>> make_hot(const loaded_key& from, host_allocator& alloc,
                                                            const copy_progress& progress = {});
  // The same key mapped again (from hot, copied again into the same copy_dir), reusing the matrices.
  static result<std::shared_ptr<const loaded_key>> make_warm(const loaded_key& from);

  key_tier tier() const noexcept { return tier_; }
  formats::curve_id curve() const noexcept {
    return m_.index() == 0 ? formats::curve_id::bn254 : formats::curve_id::bls12_381;
  }
  const std::string& path() const noexcept { return path_; }
  // Bytes of the file mapping (page cache, shared and reclaimable) and of memory this key owns.
  uint64_t mapped_bytes() const noexcept { return mapped_; }
  uint64_t owned_bytes() const noexcept { return owned_; }
  uint64_t resident_bytes() const noexcept { return mapped_ + owned_; }
  // How many bytes of memory the hot copy of this key takes (points and matrices).
  uint64_t hot_bytes() const noexcept;

  // The material for curve C; nullptr when the key is for the other curve.
  template <class C>
  const key_material<C>* get() const noexcept {
    return std::get_if<key_material<C>>(&m_);
  }

 private:
  loaded_key() = default;
  template <class C>
  static result<std::shared_ptr<const loaded_key>> load_warm_as(const std::string& path,
                                                                const key_summary& expect, point_check check,
                                                                const std::string& copy_dir, const step_done& step);
  template <class C>
  static result<std::shared_ptr<const loaded_key>> make_hot_as(const loaded_key& from,
                                                               const key_material<C>& src,
                                                               host_allocator& alloc, const copy_progress& progress);
  template <class C>
  static result<std::shared_ptr<const loaded_key>> make_warm_as(const loaded_key& from,
                                                                const key_material<C>& src);

  std::variant<key_material<bn254>, key_material<bls12_381>> m_;
  key_tier tier_ = key_tier::warm;
  std::string path_;
  std::string copy_dir_;
  uint64_t mapped_ = 0, owned_ = 0, matrix_bytes_ = 0, point_bytes_ = 0;
};

}  // namespace cuzk::engine
