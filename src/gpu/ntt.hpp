// SPDX-License-Identifier: MIT OR Apache-2.0
// Number-theoretic transforms over a scalar field Fr on the GPU, in place on device-resident data.
//
// A `ntt_plan<Fr>` owns the twiddles of one power-of-two domain, computed once on the device:
// the powers g^i and g^-i (i < n) of g = omega_2n, the 2n-th root of unity of
// ff::root_of_unity (5^((r-1)/2^k), exactly as snarkjs). g^i is the snarkjs odd-coset shift
// (coefficient i times g^i; g = 25 at the largest domain, where no 2n-th root exists, as snarkjs
// does). The butterflies' twiddles are powers of omega_n; the plan keeps them in Shoup's form (the
// value and its quotient by p, ntt_shoup.cuh), whose product by a fixed factor costs 22% fewer
// multiplies than a Montgomery product, one run per stage laid out for whole-line reads (ntt.cuh).
// The powers cost 2n field elements; each twiddle table 2n more (1 GiB at 2^24 for a 32-byte Fr).
// A transform's table depends on its direction and on the order it reads (ntt_tables), so a plan
// builds only those it is asked for: the Groth16 prover's two transforms need 6n elements in all,
// every transform 10n. Where the device has the room, a table read is cheaper than the
// multiplication that would rebuild a twiddle.
//
// Where it has not (12 GiB at 2^26 is most of a 16 GB card), a compact plan (ntt_memory::compact)
// keeps tables only for the passes whose stages have few distinct twiddles; a pass with a larger
// stage makes each twiddle as the product of two entries of short tables of omega_n's powers and
// multiplies by it in Montgomery's form, and the coset powers come from two short tables likewise:
// O(sqrt n) elements plus at most a few tens of MiB of tables (docs/gpu/ntt.md, 'Compact plans').
// Both plans give the same values.
//
// Orders: a transform reads natural order and writes bit-reversed, or reads bit-reversed and
// writes natural; both run Cooley-Tukey butterflies (a, b) -> (a + w b, a - w b), the first with
// each stage's twiddles indexed by block, the second by offset within a block (ntt.cuh). Pairing
// a natural_to_bitrev transform with a bitrev_to_natural one needs no permutation pass at all.
// natural_to_natural adds one bit-reversal pass. The coset step (forward: multiply coefficient i
// by g^i first; inverse: multiply coefficient i by g^-i last) and the inverse's 1/n are fused
// into the first or last pass.
//
// Values are Fr elements in Montgomery form (the CPU layout; fp_device has the same), so host
// arrays copy to and from the device unchanged.
//
// Thread: the thread that owns the device; the plan's device must be current.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <bit>
#include <cstddef>

#include "base/result.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "gpu/counting_arena.hpp"
#include "gpu/device_buffer.hpp"

namespace cuzk::gpu {

enum class ntt_direction { forward, inverse };
enum class ntt_order { natural_to_bitrev, bitrev_to_natural, natural_to_natural };
enum class ntt_domain { plain, coset };

// The transforms a plan can run, by direction and the order they read (natural_to_natural reads
// natural order); each has its own twiddle table. Flags, combined with |.
enum class ntt_tables : unsigned {
  forward_from_natural = 1,
  forward_from_bitrev = 2,
  inverse_from_natural = 4,
  inverse_from_bitrev = 8,
  all = 15,
};
constexpr ntt_tables operator|(ntt_tables a, ntt_tables b) {
  return static_cast<ntt_tables>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr bool has(ntt_tables set, ntt_tables t) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(t)) == static_cast<unsigned>(t);
}
// The twiddle tables are cut into tiles of 2^ntt_log_tile entries (ntt.cuh), so a table of a
// small domain still takes one whole tile.
inline constexpr unsigned ntt_log_tile = 10;

// How a plan keeps its twiddles and coset powers (see above).
enum class ntt_memory {
  tables,   // every twiddle and coset power read from a table: 6n elements for the prover
  compact,  // tables only where a pass's stages have at most 2^compact_log_stage twiddles each
};
// A compact plan's tables: a pass reads its twiddles from a table when none of its stages has
// more than 2^18 of them (16 MiB of Shoup pairs for a 32-byte Fr), and computes them otherwise.
inline constexpr unsigned ntt_compact_log_stage = 18;

// The table a transform needs.
constexpr ntt_tables table_for(ntt_direction dir, ntt_order order) {
  const bool natural_in = order != ntt_order::bitrev_to_natural;
  if (dir == ntt_direction::forward)
    return natural_in ? ntt_tables::forward_from_natural : ntt_tables::forward_from_bitrev;
  return natural_in ? ntt_tables::inverse_from_natural : ntt_tables::inverse_from_bitrev;
}

template <class Fr>
class ntt_plan {
 public:
  // Twiddles for the domain of 2^log_n points on the current device, 0 <= log_n <= two-adicity,
  // for the transforms in `tables`, kept as `memory` says; a compact plan keeps the tables of the
  // passes whose stages have at most 2^compact_log_stage twiddles each (tests lower it to make
  // small domains compute theirs). Below 2^3 points a plan is always `tables` (a few elements).
  // The buffers it keeps come from `arena` where one is given (device_bytes() of them).
  static result<ntt_plan> create(unsigned log_n, cudaStream_t stream = nullptr,
                                 ntt_tables tables = ntt_tables::all, ntt_memory memory = ntt_memory::tables,
                                 unsigned compact_log_stage = ntt_compact_log_stage,
                                 counting_arena* arena = nullptr);

  // The device bytes a plan for 2^log_n points keeps: the coset powers, the short tables of
  // omega_n's powers the twiddles are made from, and each transform's Shoup table (a whole tile of
  // 2^10 entries at least; in a compact plan, the entries its table-reading passes use). A full
  // plan's powers are expanded from a short table of 2^10 + n / 2^10 elements that lives only
  // while create() runs (0.5 MiB at 2^24), beside this.
  static std::size_t device_bytes(unsigned log_n, ntt_tables tables, ntt_memory memory = ntt_memory::tables,
                                  unsigned compact_log_stage = ntt_compact_log_stage);

  unsigned log_size() const noexcept { return log_n_; }
  std::size_t size() const noexcept { return std::size_t{1} << log_n_; }
  // The coset shift g (omega_2n, or 25 at the largest domain).
  const Fr& coset_shift() const noexcept { return shift_; }
  // How the plan keeps its twiddles (a compact request below 2^3 points gives `tables`).
  ntt_memory memory() const noexcept { return memory_; }

  // Transforms `data` (2^log_n device elements) in place, queued on `stream`. invalid_argument
  // when the plan was built without the transform's table.
  status run(Fr* data, ntt_direction dir, ntt_order order, ntt_domain domain, cudaStream_t stream = nullptr) const;

 private:
  unsigned log_n_ = 0;
  Fr shift_{};
  Fr n_inv_{};
  ntt_memory memory_ = ntt_memory::tables;
  unsigned compact_log_stage_ = ntt_compact_log_stage;
  // g^i and g^-i, i < n: in full (n each), or in a compact plan as two short tables each, the low
  // 2^log_pow_lo_ powers then the powers of g^(2^log_pow_lo_), so that g^i = lo[i mod 2^b] hi[i >> b].
  device_buffer<Fr> pow_fwd_;
  device_buffer<Fr> pow_inv_;
  unsigned log_pow_lo_ = 0;
  // omega_n^x and omega_n^-x, x < n/2, the same way: the low 2^log_omega_lo_ powers, then the
  // powers of omega_n^(2^log_omega_lo_). The Shoup tables are made from them, and a compact plan's
  // computing passes read them.
  device_buffer<Fr> omega_[2];
  unsigned log_omega_lo_ = 0;
  ntt_tables tables_ = ntt_tables::all;
  // The butterflies' twiddles in Shoup's form (ntt_shoup.cuh), each the plain value and its
  // quotient floor(w 2^256 / p), as four planes of 16-byte quarters in tiles of 2^10 entries,
  // indexed by ntt_tables' bit; empty where not built. By block (natural input), stage s's
  // omega_n^(2^(L-s-1) brv_s(v)) at entry 2^s - 1 + v; by offset (bit-reversed input),
  // omega_n^(j 2^s) at entry n - n/2^s + j. A table holds entries shoup_first_[bit] (a multiple of
  // the tile) on: all of them (2 max(n, 2^10) elements) in a full plan, those of the passes that
  // read it in a compact one.
  device_buffer<Fr> shoup_[4];
  std::size_t shoup_first_[4] = {};
};

extern template class ntt_plan<bn254::fr>;
extern template class ntt_plan<bls12_381::fr>;

}  // namespace cuzk::gpu
