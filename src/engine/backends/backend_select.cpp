// SPDX-License-Identifier: MIT OR Apache-2.0
// The backend choice (see backend_select.hpp).
#include "engine/backends/backend_select.hpp"

#include "engine/backends/cpu_prover_backend.hpp"
#include "groth16/prover_choice.hpp"
#if defined(CUZK_HAVE_GPU_PROVER)
#include "engine/backends/gpu_prover_backend.hpp"
#endif

namespace cuzk::engine {

bool gpu_backend_built() noexcept { return groth16::gpu_prover_built(); }

result<backend_parts> select_backend(groth16::prover_kind backend, [[maybe_unused]] const gpu_options& gpu,
                                     unsigned cpu_workers) {
  backend_parts p;
  auto cpu = [&](const std::string& why) -> result<backend_parts> {
    p.backend = std::make_unique<cpu_prover_backend>();
    p.note = "backend=cpu workers=" + std::to_string(cpu_workers) + (why.empty() ? "" : " (" + why + ")");
    return std::move(p);
  };
  auto choice = groth16::choose_prover(backend);
  if (!choice) return choice.error().with_context("backend gpu");
  if (choice->kind == groth16::prover_kind::cpu)
    return cpu(backend == groth16::prover_kind::cpu ? "" : "auto: " + choice->reason);
#if defined(CUZK_HAVE_GPU_PROVER)
  auto g = make_gpu_backend(gpu);
  if (!g) {
    if (backend == groth16::prover_kind::gpu || g.error().code() != errc::unsupported)
      return g.error().with_context("backend gpu");
    return cpu("auto: " + g.error().message());
  }
  p.backend = std::move(g->backend);
  p.devices = std::move(g->devices);
  p.hot_allocator = std::move(g->pinned);
  p.note = "backend=gpu " + g->description;
  return p;
#else
  return status(errc::internal, "backend gpu: the chooser took the GPU in a build without it");
#endif
}

}  // namespace cuzk::engine
