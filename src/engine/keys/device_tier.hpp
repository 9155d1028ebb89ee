// SPDX-License-Identifier: MIT OR Apache-2.0
// The device tier's seam: what the key manager needs from a GPU backend, without CUDA.
//
// The key manager's device tier (device_key_tier.hpp) decides which key is on which device and when
// it leaves; what a key on a device is, and how it gets there, belongs to the GPU backend
// (backends/gpu_device_key.hpp). Between them stand two small interfaces: a device_key is an
// opaque, immutable handle the backend made, and a device_uploader makes one from a loaded key. The
// engine's unit tests put a fake uploader here, so the accounting (budgets, reference counts,
// least-recently-used demotion) is tested on machines without a GPU.
//
// Slots. A slot is one device the engine proves on: its own byte budget for keys, its own copy of
// every key it serves, its own workers and its own kernel lock. Normally slot i is CUDA device
// ordinal i; a config may list an ordinal twice, which gives two slots on one GPU, each with its
// own key copies: how the multi-GPU logic is exercised on a machine with one. Slots are named
// "device:<ordinal>", and "device:<ordinal>#<k>" for the k-th further slot on the same ordinal.
//
// Thread safety: an uploader's methods are called from any thread, several at once for different
// slots (the manager uploads one key to one slot at a time); a device_key is immutable.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "engine/keys/loaded_key.hpp"

namespace cuzk::engine {

struct device_slot {
  int ordinal = 0;       // the CUDA device
  uint64_t budget = 0;   // bytes of device memory for keys
  std::string name;      // "device:0"
};

// One slot per ordinal given, in that order, named as above, each with `budget` bytes.
std::vector<device_slot> make_device_slots(const std::vector<int>& ordinals, uint64_t budget);

// A proving key resident on one slot's device. What it holds is the backend's business; the
// manager only counts its bytes and drops it when the key leaves the slot.
class device_key {
 public:
  virtual ~device_key() = default;
  // Device memory it holds (the GPU backend's: what its counting arena handed out).
  virtual uint64_t bytes() const noexcept = 0;
  // Host memory it holds besides the key in its host tier: the pinned copies of point vectors it
  // streams from host memory in every proof.
  virtual uint64_t host_bytes() const noexcept { return 0; }
  // How the copy is laid out on its device, in words for the log and the status (the GPU backend:
  // which vectors stream and in what ranges, the twiddles, B2 beside A, B1 and C or in turn, how
  // many of a, b, c a proof keeps there, where synthesis runs); empty where there is nothing to say.
  virtual std::string placement() const { return {}; }
};

class device_uploader {
 public:
  virtual ~device_uploader() = default;
  // Bytes `key` will take on a device whose slot has `budget` bytes for keys, as far as they are
  // known before it is there (a key larger than the budget may keep part of itself in host memory
  // and take less); the manager admits an upload on this and enforces the budget again with the
  // copy's bytes() (the GPU uploader's estimate equals them).
  virtual uint64_t estimate_bytes(const loaded_key& key, uint64_t budget) const = 0;
  // Host memory the same upload will hold beside the host tier's copy of the key, at most (the
  // vectors it will stream, copied into pinned memory): reserved in the host budget before the
  // upload, and settled to the copy's host_bytes() after it.
  virtual uint64_t estimate_host_bytes(const loaded_key& /*key*/, uint64_t /*budget*/) const { return 0; }
  // `key` on the device of slot `slot` (an index into the slots the manager was given).
  virtual result<std::shared_ptr<const device_key>> upload(const loaded_key& key, int slot,
                                                           const device_slot& where) = 0;
};

}  // namespace cuzk::engine
