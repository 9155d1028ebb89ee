// SPDX-License-Identifier: MIT OR Apache-2.0
// How the GPU backend runs: its devices, workers, budgets and where a proof's vectors are computed.
// A part of engine_options (engine_options.hpp) that the backends take on their own, so that
// nothing in backends/ includes the engine's options.
#pragma once

#include <cstdint>
#include <vector>

#include "groth16/key_vectors.hpp"
#include "groth16/synthesis_place.hpp"

namespace cuzk::engine {

struct gpu_options {
  // CUDA device ordinals, one device slot each (device_tier.hpp); an ordinal listed twice gives
  // two slots on one GPU. Empty: every visible device once.
  std::vector<int> devices;
  // Workers per slot: with two, one worker's synthesis and copies overlap the other's kernels.
  unsigned workers_per_device = 2;
  // Bytes of device memory for proving keys, per slot. 0: 80% of the device's free memory at
  // start, shared among the slots on that device. Never more than the slot's share of
  // device_memory_budget: a key is placed with one worker's buffers beside it, out of that budget.
  uint64_t key_budget = 0;
  // Bytes of device memory the daemon uses on each device: key copies and the workers' buffers
  // together, reserved before they are allocated (memory_budget.hpp). 0: 90% of the device's free
  // memory at start.
  uint64_t device_memory_budget = 0;
  // Where a, b, c are computed: on the device (from matrices resident with the key), host_pinned
  // (CPU threads into pinned buffers, copied outside the kernel lock) or host_pageable (the slow
  // copy, kept to measure what pinned memory buys). With device, a key whose matrices and one
  // worker's buffers do not fit its slot's budget together at any placement gets host_pinned
  // instead (gpu_device_key.cpp): a 2^26 key's matrices are 1.6 GiB with few distinct values, 7.3
  // GiB with every value distinct, and a 16 GiB card's worker needs most of the rest.
  groth16::synthesis_place synthesis = groth16::synthesis_place::device;
  // The most partitions of one job proven in one pass over a streamed key's points (each range of
  // points then crosses from host memory once for all of them); fewer when the device budget has
  // no room for more. 1: one partition at a time. Keys resident whole are never batched.
  unsigned batch_partitions = 16;
  // Point vectors every key streams from host memory whatever its size (what the budgets stream
  // is added to them): to measure or test a streamed key on a device that would hold it whole.
  groth16::key_vector_set streamed;
};

}  // namespace cuzk::engine
