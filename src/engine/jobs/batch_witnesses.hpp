// SPDX-License-Identifier: MIT OR Apache-2.0
// A batch's witnesses as a backend takes them (prover_backend::prove_batch): one partition at a
// time, in order, each when the backend is ready for it. The engine's implementation
// (witness_stream.hpp) reads them on threads of its own, so that a backend proving a batch starts
// on its first partitions while the last are still being read from disk; ready_witnesses holds
// witnesses already in memory.
//
// Thread safety: wait() and ready() from the one thread that proves the batch; an implementation
// may fill its witnesses from others.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "base/result.hpp"
#include "engine/jobs/witness.hpp"

namespace cuzk::engine {

class batch_witnesses {
 public:
  virtual ~batch_witnesses() = default;
  virtual std::size_t size() const noexcept = 0;
  // Partition p's witness (p counts from the batch's first, 0), waiting for it where it is still
  // being made; the error that ended its read where it failed. It lives as long as this object.
  virtual result<const any_witness*> wait(std::size_t p) = 0;
  // Whether wait(p) would return at once.
  virtual bool ready(std::size_t p) const = 0;
};

// Witnesses that are all in memory already.
class ready_witnesses final : public batch_witnesses {
 public:
  explicit ready_witnesses(std::span<const any_witness* const> all) : all_(all) {}
  std::size_t size() const noexcept override { return all_.size(); }
  result<const any_witness*> wait(std::size_t p) override {
    if (p >= all_.size())
      return status(errc::out_of_range, "batch witnesses: no partition " + std::to_string(p) + " in a batch of " +
                                            std::to_string(all_.size()));
    return all_[p];
  }
  bool ready(std::size_t /*p*/) const override { return true; }

 private:
  std::span<const any_witness* const> all_;
};

}  // namespace cuzk::engine
