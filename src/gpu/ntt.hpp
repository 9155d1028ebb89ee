// Number-theoretic transforms over a scalar field Fr on the GPU, in place on device-resident data.
//
// A `ntt_plan<Fr>` owns the twiddles of one power-of-two domain, computed once on the device:
// the powers g^i and g^-i (i < n) of g = omega_2n, the 2n-th root of unity of
// ff::root_of_unity (5^((r-1)/2^k), exactly as snarkjs). g^i is the snarkjs odd-coset shift
// (coefficient i times g^i; g = 25 at the largest domain, where no 2n-th root exists, as snarkjs
// does); omega_n^t = g^(2t) are the butterflies' twiddles, which the plan also keeps in Shoup's
// form (the value and its quotient by p, ntt_shoup.cuh), whose product by a fixed factor costs
// 22% fewer multiplies than a Montgomery product, one run per stage laid out for whole-line reads
// (ntt.cuh). Powers and pairs cost 6n field elements for both directions (3 GiB at 2^24): device
// memory is plentiful and a table read is cheaper than the multiplication that would rebuild a
// twiddle.
//
// Orders: a transform reads natural order and writes bit-reversed (decimation in frequency), or
// reads bit-reversed and writes natural (decimation in time); pairing a natural_to_bitrev forward
// with a bitrev_to_natural inverse (or the other way round) needs no permutation pass at all.
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

#include <cstddef>

#include "base/result.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "gpu/device_buffer.hpp"

namespace cuzk::gpu {

enum class ntt_direction { forward, inverse };
enum class ntt_order { natural_to_bitrev, bitrev_to_natural, natural_to_natural };
enum class ntt_domain { plain, coset };

template <class Fr>
class ntt_plan {
 public:
  // Twiddles for the domain of 2^log_n points on the current device, 0 <= log_n <= two-adicity.
  static result<ntt_plan> create(unsigned log_n, cudaStream_t stream = nullptr);

  unsigned log_size() const noexcept { return log_n_; }
  std::size_t size() const noexcept { return std::size_t{1} << log_n_; }
  // The coset shift g (omega_2n, or 25 at the largest domain).
  const Fr& coset_shift() const noexcept { return shift_; }

  // Transforms `data` (2^log_n device elements) in place, queued on `stream`.
  status run(Fr* data, ntt_direction dir, ntt_order order, ntt_domain domain, cudaStream_t stream = nullptr) const;

 private:
  unsigned log_n_ = 0;
  Fr shift_{};
  Fr n_inv_{};
  device_buffer<Fr> pow_fwd_;  // g^i, i < n
  device_buffer<Fr> pow_inv_;  // g^-i, i < n
  // The butterflies' twiddles in Shoup's form (ntt_shoup.cuh), each the plain value and its
  // quotient floor(w 2^256 / p): stage s's omega_n^(j 2^s) at entry n - n/2^s + j, as four planes
  // of 16-byte quarters in tiles of 2^10 entries (2 max(n, 2^10) elements per direction).
  device_buffer<Fr> shoup_fwd_;
  device_buffer<Fr> shoup_inv_;
};

extern template class ntt_plan<bn254::fr>;
extern template class ntt_plan<bls12_381::fr>;

}  // namespace cuzk::gpu
