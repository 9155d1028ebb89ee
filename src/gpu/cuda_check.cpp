// SPDX-License-Identifier: MIT OR Apache-2.0
#include "gpu/cuda_check.hpp"

#include <cstring>
#include <string>

namespace cuzk::gpu {

namespace {

// __FILE__ is absolute in CMake builds; keep the part from "src/" on so messages are short and
// the same on every machine.
const char* project_relative(const char* file) {
  const char* best = nullptr;
  for (const char* p = std::strstr(file, "src/"); p != nullptr; p = std::strstr(p + 1, "src/")) best = p;
  return best != nullptr ? best : file;
}

}  // namespace

status cuda_status(cudaError_t err, const char* expr, const char* file, int line) {
  // The runtime also keeps a failed call's (non-sticky) error as the thread's "last error"; the
  // status now carries it, so clear it, or the next launch check (cudaGetLastError after a
  // kernel) would report this old failure as its own.
  (void)cudaGetLastError();
  std::string msg = expr;
  msg += " at ";
  msg += project_relative(file);
  msg += ':';
  msg += std::to_string(line);
  msg += ": ";
  msg += cudaGetErrorName(err);
  msg += ": ";
  msg += cudaGetErrorString(err);
  return {errc::cuda_error, std::move(msg)};
}

}  // namespace cuzk::gpu
