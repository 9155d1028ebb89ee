// SPDX-License-Identifier: MIT OR Apache-2.0
// Which prover runs a proof: the one chooser the CLI and the engine share.
//
// prover_kind is what a user asks for (`backend = "auto"` in the daemon's config, the CLI's
// default): automatic takes the GPU prover when this build has it and a CUDA device answers, else
// the CPU prover with the reason; gpu makes that reason an error, so that a daemon configured
// for a GPU does not quietly prove on the CPU; cpu never asks the CUDA runtime.
//
// This header needs no CUDA headers and exists in every build: where the GPU prover is not
// built, choose_prover() answers as a machine without a GPU would, with that reason.
//
// Thread: any thread (it asks the CUDA runtime about devices).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/enum_names.hpp"
#include "base/result.hpp"

namespace cuzk::groth16 {

enum class prover_kind { automatic, cpu, gpu };

// "auto", "cpu", "gpu": the config's and the CLI's words.
inline constexpr auto prover_kinds = words_of<prover_kind::gpu>({"auto", "cpu", "gpu"});
constexpr const char* prover_kind_name(prover_kind k) noexcept { return prover_kinds.name(k); }
constexpr std::optional<prover_kind> parse_prover_kind(std::string_view w) noexcept { return prover_kinds.parse(w); }

struct prover_choice {
  prover_kind kind = prover_kind::cpu;  // cpu or gpu, never automatic
  int devices = 0;                      // CUDA devices found (0 when the CPU was asked for)
  // "NVIDIA H200 (sm_90, 132 SMs)" for the GPU; why not otherwise, as a sentence for a person
  // ("no usable CUDA GPU: the NVIDIA driver is missing or older than ...").
  std::string reason;
};

// What `wanted` resolves to on this machine. Errors (errc::unsupported): gpu where the build has
// no GPU prover or no CUDA device answers, with the reason.
result<prover_choice> choose_prover(prover_kind wanted);

// Whether this build has the GPU prover (groth16/gpu/).
bool gpu_prover_built() noexcept;

// Why the CUDA runtime found no device, in plain words, from a CUZK_CUDA_TRY message
// ("cudaGetDeviceCount(&count) at src/gpu/device.cpp:13: cudaErrorInsufficientDriver: CUDA driver
// version is insufficient for CUDA runtime version"): a machine without a GPU is an ordinary
// machine, and its user needs the reason, not a source line. Unknown errors keep the runtime's own
// words without the expression and file.
std::string plain_cuda_reason(std::string_view cuda_message);

}  // namespace cuzk::groth16
