// SPDX-License-Identifier: MIT OR Apache-2.0
// gpu_proving_key::create (gpu_proving_key.hpp), instantiated for both curves at the end: the
// key's points, NTT plan and matrices put on its device as its options (gpu_key_placement.hpp)
// place them. Host code: the kernels it launches live in the cuzk_gpu library.
#include "groth16/gpu/gpu_proving_key.hpp"

#include <bit>
#include <span>
#include <string>
#include <utility>

#include "base/parallel_copy.hpp"

namespace cuzk::groth16 {

namespace {

// Moves a created resource into its slot, or passes the creation's error on.
template <class T>
status take(T& slot, result<T>&& made) {
  if (!made) return made.error();
  slot = std::move(made).value();
  return status::ok();
}

// A vector's points and the MSM object that owns them: resident (in a buffer from the key's
// arena), or left where they are and streamed.
template <class Msm, class Point>
status make_msm(Msm& slot, std::span<const Point> points, bool streamed, std::size_t chunk_points,
                gpu::counting_arena& arena) {
  return take(slot, streamed ? Msm::create_streamed(points.data(), points.size(), chunk_points)
                             : Msm::create(points.data(), points.size(), nullptr, &arena));
}

// Whether the runtime knows `p` as page-locked host memory (cudaHostAlloc'd or registered).
bool pinned_host(const void* p) {
  cudaPointerAttributes attr{};
  const bool host = cudaPointerGetAttributes(&attr, p) == cudaSuccess && attr.type == cudaMemoryTypeHost;
  (void)cudaGetLastError();
  return host;
}

// The points a streamed vector streams from: `points` where they are pinned already, otherwise a
// pinned copy the key owns (locked memory), filled on threads of its own (base/parallel_copy.hpp).
// Where the copy cannot be allocated (host memory), the vector streams from where it is, at the
// pageable rate, and the key says so.
template <class Point>
std::span<const Point> pinned_source(std::span<const Point> points, gpu::locked_buffer<Point>& copy,
                                     bool& pageable) {
  if (points.empty() || pinned_host(points.data())) return points;
  auto made = gpu::locked_buffer<Point>::create(points.size());
  if (!made) {
    pageable = true;
    return points;
  }
  copy = std::move(made).value();
  // On threads of its own, not the global pool's: an upload beside other keys' proofs.
  const copy_range whole{copy.data(), points.data(), points.size_bytes()};
  parallel_copy(std::span(&whole, 1));
  return {copy.data(), points.size()};
}

}  // namespace

template <class Curve>
result<gpu_proving_key<Curve>> gpu_proving_key<Curve>::create(const proving_key_view<Curve>& pk,
                                                              int device, gpu_key_options options) {
  using fr = typename Curve::fr;
  CUZK_TRY(pk.validate());
  CUZK_CUDA_TRY(cudaSetDevice(device));

  auto st = std::make_unique<detail::gpu_key_state<Curve>>();
  st->device = device;
  st->synthesis = options.synthesis;
  st->n_vars = pk.n_vars;
  st->n_public = pk.n_public;
  st->domain_size = pk.domain_size;
  st->kernel_lock = options.kernel_lock ? std::move(options.kernel_lock) : std::make_shared<kernel_gate>();
  const std::size_t n = pk.domain_size;
  if (options.device_budget_bytes) {
    const std::size_t budget = *options.device_budget_bytes;
    auto fitted = fit_to_budget(pk, std::move(options), budget);
    if (!fitted) return fitted.error();
    options = std::move(fitted).value();
  }
  st->streamed = options.streamed;
  const key_vector_set& sv = st->streamed;
  const std::size_t chunk = options.stream_chunk_points;
  st->chunk_points = chunk != 0 ? chunk : gpu::msm_g1<Curve>::default_chunk_points;
  auto vector = [&](auto& msm, auto points, key_vector v, auto& copy) -> status {
    const bool streamed = sv.contains(v);
    if (streamed) points = pinned_source(points, copy, st->pageable_streamed);
    return make_msm(msm, points, streamed, chunk, st->arena);
  };
  CUZK_TRY(vector(st->msm_a, pk.a, key_vector::a, st->pinned_a));
  CUZK_TRY(vector(st->msm_b1, pk.b1, key_vector::b1, st->pinned_b1));
  CUZK_TRY(vector(st->msm_b2, pk.b2, key_vector::b2, st->pinned_b2));
  CUZK_TRY(vector(st->msm_c, pk.c, key_vector::c, st->pinned_c));
  CUZK_TRY(vector(st->msm_h, pk.h, key_vector::h, st->pinned_h));
  CUZK_TRY(take(st->plan, gpu::ntt_plan<fr>::create(static_cast<unsigned>(std::countr_zero(n)), nullptr,
                                                    prover_ntt_tables, options.twiddles,
                                                    gpu::ntt_compact_log_stage, &st->arena)));
  if (options.synthesis == synthesis_place::device) {
    auto m = gpu::device_constraint_matrices<fr>::create(*pk.matrices, &st->arena);
    if (!m) return m.error();
    st->matrices.emplace(std::move(m).value());
  }
  st->b2_beside = options.b2_beside;
  st->abc = options.abc;
  st->scratch = key_msm_scratch(pk, sv, chunk, 1, options.b2_beside);
  if (options.workspace == key_workspace::own) {
    auto ws = gpu_workspace<Curve>::create(device);
    if (!ws) return ws.error();
    st->own = std::make_unique<gpu_workspace<Curve>>(std::move(ws).value());
    CUZK_TRY(st->own->reserve(pk.n_vars, n, options.synthesis, options.abc, st->scratch));
  }
  // The plan's tables are filled by kernels on the default stream: they end before a proof's
  // streams read them.
  CUZK_CUDA_TRY(cudaDeviceSynchronize());

  gpu_proving_key key;
  key.state_ = std::move(st);
  return result<gpu_proving_key>(std::move(key));
}

template class gpu_proving_key<bn254>;
template class gpu_proving_key<bls12_381>;

}  // namespace cuzk::groth16
