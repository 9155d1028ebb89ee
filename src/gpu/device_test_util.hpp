// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU tests' guard: a test that needs a device skips, with the runtime's reason, where no CUDA
// device answers (CI builds the GPU tests on a machine without one and runs only their listing).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "gpu/device.hpp"

#define CUZK_REQUIRE_GPU()                                                                         \
  do {                                                                                             \
    const auto count_ = ::cuzk::gpu::device_count();                                               \
    if (!count_.is_ok() || *count_ == 0)                                                           \
      GTEST_SKIP() << "no usable CUDA device ("                                                    \
                   << (count_.is_ok() ? std::string("none found") : count_.error().to_string())    \
                   << "); the gpu tests need an NVIDIA GPU (scripts/gpu/check.sh)";            \
  } while (0)
