// SPDX-License-Identifier: MIT OR Apache-2.0
// The prover chooser's answers on this machine, and its reasons in plain words: a machine without a
// usable GPU is told why in a sentence, never with the CUDA call, its source file and line.
#include "groth16/prover_choice.hpp"

#include <gtest/gtest.h>

namespace cuzk::groth16 {
namespace {

TEST(prover_choice, cuda_errors_become_plain_sentences) {
  const std::string driver =
      "cudaGetDeviceCount(&count) at src/gpu/device.cpp:13: cudaErrorInsufficientDriver: CUDA driver version "
      "is "
      "insufficient for CUDA runtime version";
  const std::string plain = plain_cuda_reason(driver);
  EXPECT_EQ(plain, "the NVIDIA driver is missing, or older than this build's CUDA runtime needs");
  EXPECT_EQ(plain_cuda_reason(
                "cudaGetDeviceCount(&count) at src/gpu/device.cpp:13: cudaErrorNoDevice: no CUDA-capable "
                "device is detected"),
            "no CUDA device found");
  // An error without its own wording keeps the runtime's text, without the call and file:line.
  EXPECT_EQ(plain_cuda_reason(
                "cudaGetDeviceCount(&count) at src/gpu/device.cpp:13: cudaErrorUnknown: unknown error"),
            "unknown error");
  EXPECT_EQ(plain_cuda_reason("something else entirely"), "something else entirely");
}

TEST(prover_choice, the_cpu_when_asked_and_a_plain_reason_when_no_gpu_answers) {
  const auto cpu = choose_prover(prover_kind::cpu);
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->kind, prover_kind::cpu);
  const auto any = choose_prover(prover_kind::automatic);
  ASSERT_TRUE(any);  // automatic always answers
  if (any->kind == prover_kind::gpu) GTEST_SKIP() << "a GPU answers here: " << any->reason;
  for (const char* source_detail : {".cpp:", "src/", "cudaGetDeviceCount", "cudaError"})
    EXPECT_EQ(any->reason.find(source_detail), std::string::npos) << any->reason;
  if (gpu_prover_built())
    EXPECT_EQ(any->reason.rfind("no usable CUDA GPU: ", 0), 0u) << any->reason;
  else
    EXPECT_NE(any->reason.find("no CUDA backend"), std::string::npos) << any->reason;
  const auto gpu = choose_prover(prover_kind::gpu);
  ASSERT_FALSE(gpu);
  EXPECT_EQ(gpu.error().code(), errc::unsupported);
}

}  // namespace
}  // namespace cuzk::groth16
