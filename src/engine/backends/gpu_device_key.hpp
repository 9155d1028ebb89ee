// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU backend's half of the device tier (device_tier.hpp): what a key on a device is (a
// gpu_proving_key of either curve) and the uploader that makes one on a slot. Built only with the
// GPU prover.
//
// An upload makes the key with synthesis on the device from its resident matrices (or where the
// daemon's config puts it), the slot's kernel lock, no workspace of its own (the workers bring
// theirs, with the MSM arenas the key asks for: gpu_proving_key::msm_scratch), and the slot's
// budget: a key larger than it streams the point vectors that do not fit from the host
// copy of the key (groth16/gpu/gpu_proving_key.hpp, 'Streamed vectors').
//
// Thread safety: upload() from any thread, beside other uploads and proofs on the same device: a
// key's size is what its own counting arena handed out (gpu_proving_key::resident_bytes), not a
// measurement of the device's free memory.
#pragma once

#include <memory>
#include <variant>

#include "engine/backends/gpu_slots.hpp"
#include "engine/keys/device_tier.hpp"
#include "groth16/gpu/gpu_proving_key.hpp"
#include "groth16/synthesis_place.hpp"

namespace cuzk::engine {

class gpu_device_key final : public device_key {
 public:
  explicit gpu_device_key(groth16::gpu_proving_key<bn254> k) : key(std::move(k)) {}
  explicit gpu_device_key(groth16::gpu_proving_key<bls12_381> k) : key(std::move(k)) {}
  uint64_t bytes() const noexcept override {
    return std::visit([](const auto& k) -> uint64_t { return k.resident_bytes(); }, key);
  }
  uint64_t host_bytes() const noexcept override {
    return std::visit([](const auto& k) -> uint64_t { return k.pinned_host_bytes(); }, key);
  }
  // "streamed: h,b2 in ranges of 1048576 points; twiddles tables; B2 in turn; a, b, c on the
  // device: three; synthesis device": what the budget chose (gpu_device_key.cpp, place_on).
  std::string placement() const override;
  std::variant<groth16::gpu_proving_key<bn254>, groth16::gpu_proving_key<bls12_381>> key;
};

class gpu_uploader final : public device_uploader {
 public:
  gpu_uploader(std::shared_ptr<gpu_slots> slots, groth16::synthesis_place place,
               groth16::key_vector_set always_streamed = {})
      : slots_(std::move(slots)), place_(place), always_streamed_(always_streamed) {}

  // The resident points, the NTT twiddles and, with synthesis on the device, the matrices A and B:
  // exactly the bytes() of the copy upload() makes (engine_gpu_backend_test.cpp checks). A key
  // whose known bytes exceed `budget` streams the vectors that groth16::choose_streamed says do
  // not fit (all of them where nothing fits), and their points are not counted. The MSM scratch is
  // the workers' (their workspaces), not the key's.
  uint64_t estimate_bytes(const loaded_key& key, uint64_t budget) const override;
  // The bytes of the vectors it would stream: their pinned copies, at most (none are made where
  // the host tier holds the key in pinned memory already).
  uint64_t estimate_host_bytes(const loaded_key& key, uint64_t budget) const override;
  result<std::shared_ptr<const device_key>> upload(const loaded_key& key, int slot,
                                                   const device_slot& where) override;

 private:
  // How a key is made on a slot (the streamed vectors aside).
  groth16::gpu_key_options key_options() const;
  std::shared_ptr<gpu_slots> slots_;
  groth16::synthesis_place place_;
  groth16::key_vector_set always_streamed_;  // gpu_options::streamed
};

}  // namespace cuzk::engine
