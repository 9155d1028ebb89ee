// The backend choice (see backend_select.hpp).
#include "engine/backend_select.hpp"

#include "engine/cpu_prover_backend.hpp"
#if defined(CUZK_HAVE_GPU_PROVER)
#include "engine/gpu_prover_backend.hpp"
#endif

namespace cuzk::engine {

const char* backend_kind_name(backend_kind k) noexcept {
  switch (k) {
    case backend_kind::cpu:
      return "cpu";
    case backend_kind::gpu:
      return "gpu";
    case backend_kind::automatic:
      return "auto";
  }
  return "?";
}

bool gpu_backend_built() noexcept {
#if defined(CUZK_HAVE_GPU_PROVER)
  return true;
#else
  return false;
#endif
}

result<backend_parts> select_backend(const engine_options& o) {
  backend_parts p;
  auto cpu = [&](const std::string& why) -> result<backend_parts> {
    p.backend = std::make_unique<cpu_prover_backend>();
    p.note = "backend=cpu workers=" + std::to_string(o.workers) + (why.empty() ? "" : " (" + why + ")");
    return std::move(p);
  };
  if (o.backend == backend_kind::cpu) return cpu("");
#if defined(CUZK_HAVE_GPU_PROVER)
  auto g = make_gpu_backend(o.gpu);
  if (!g) {
    if (o.backend == backend_kind::gpu || g.error().code() != errc::unsupported)
      return g.error().with_context("backend gpu");
    return cpu("auto: " + g.error().message());
  }
  p.backend = std::move(g->backend);
  p.devices = std::move(g->devices);
  p.hot_allocator = std::move(g->pinned);
  p.note = "backend=gpu " + g->description;
  return p;
#else
  if (o.backend == backend_kind::gpu)
    return status(errc::unsupported, "backend gpu: this build has no CUDA backend (cuzk was built without nvcc)");
  return cpu("auto: this build has no CUDA backend");
#endif
}

}  // namespace cuzk::engine
