// SPDX-License-Identifier: MIT OR Apache-2.0
// host_lease: host buffers a lender puts in a gpu_workspace in place of its own for one call (the
// witness staging and, with synthesis on the host into pinned memory, a | b | c), and the lender's
// hold on them. The workspace owns the lease while it uses the buffers and ends it as soon as the
// device has read them (gpu_workspace::give_back_host); ending it is giving them back.
//
// Why an object and not a callback: the lender's own handle on the memory (a daemon's pinned pool
// lease, engine/backends/gpu_prover_backend.cpp) moves into the lease, so it lives exactly as long
// as the workspace needs the buffers and goes back when the lease is destroyed, once, whoever ends
// it; nothing refers back into the lender's stack frame, and a lease cannot be given back twice or
// forgotten. A lender that takes nothing back (the bench, whose buffers outlive every proof) lends a
// plain host_lease; one that does derives from it and gives its memory back in its destructor.
//
// Thread: one owner at a time; the workspace ends it on the proving thread.
#pragma once

#include <span>

namespace cuzk::groth16 {

template <class Curve>
class host_lease {
 public:
  using fr = typename Curve::fr;
  using repr = typename fr::repr;

  // `witness`: the staging for the witness (at least nVars values); `abc`: for synthesis on the
  // host into pinned memory, a | b | c (at least 3n; empty: the workspace's own).
  explicit host_lease(std::span<repr> witness, std::span<fr> abc = {}) : witness_(witness), abc_(abc) {}
  // A derived lease gives the buffers back to its lender here.
  virtual ~host_lease() = default;
  host_lease(const host_lease&) = delete;
  host_lease& operator=(const host_lease&) = delete;

  std::span<repr> witness() const noexcept { return witness_; }
  std::span<fr> abc() const noexcept { return abc_; }

 private:
  std::span<repr> witness_;
  std::span<fr> abc_;
};

}  // namespace cuzk::groth16
