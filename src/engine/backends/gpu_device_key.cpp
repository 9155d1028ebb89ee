// SPDX-License-Identifier: MIT OR Apache-2.0
// The device tier's GPU uploader (see gpu_device_key.hpp).
#include "engine/backends/gpu_device_key.hpp"

#include <bit>
#include <string>

namespace cuzk::engine {

namespace {

// The bytes of the points of the vectors in `set`.
template <class C>
uint64_t point_bytes(const key_material<C>& m, groth16::key_vector_set set) {
  const auto& v = m.view;
  uint64_t bytes = 0;
  auto add = [&](groth16::key_vector which, uint64_t b) { bytes += set.contains(which) ? b : 0; };
  add(groth16::key_vector::a, v.a.size_bytes());
  add(groth16::key_vector::b1, v.b1.size_bytes());
  add(groth16::key_vector::b2, v.b2.size_bytes());
  add(groth16::key_vector::c, v.c.size_bytes());
  add(groth16::key_vector::h, v.h.size_bytes());
  return bytes;
}

// Where a key's points and twiddles go on a slot: the vectors it streams and the range they cross
// in, how its NTT plan keeps its twiddles, whether its workers run B2 beside A, B1 and C (one
// arena more each), how many of a, b, c a proof keeps on the device at once, and where its proofs
// compute a, b, c.
struct placement {
  groth16::synthesis_place synthesis = groth16::synthesis_place::device;
  groth16::key_vector_set streamed;
  std::size_t chunk_points = 0;  // 0: the MSM's default range
  gpu::ntt_memory twiddles = gpu::ntt_memory::tables;
  bool b2_beside = false;
  groth16::abc_on_device abc = groth16::abc_on_device::three;
};

// The points of the vectors not streamed, the NTT plan and, with synthesis on the device, the
// matrices A and B: a key's device size before it is uploaded, to the byte what the key's counting
// arena will hand out (groth16::estimate_device_bytes with no workspace). The MSM scratch is not
// the key's but its workers' (their workspaces' arenas, reserved in the budget before a proof:
// gpu_prover_backend.cpp).
template <class C>
uint64_t known_device_bytes(const key_material<C>& m, groth16::gpu_key_options o, const placement& p) {
  o.workspace = groth16::key_workspace::none;
  o.synthesis = p.synthesis;
  o.twiddles = p.twiddles;
  return groth16::estimate_device_bytes<C>(m.view, o, p.streamed);
}

// Where a key goes on a slot with `budget` bytes for keys, counting one worker's buffers with it:
// groth16::fit_to_budget, the bench's own choice, so that what `cuzk bench prove --gpu-budget-mib`
// proves the daemon proves in a slot of that size. Compact twiddles where the key and the buffers
// do not fit with the plan's tables, the vectors it always streams (gpu_options::streamed) and what
// else must stream, B2 beside A, B1 and C only where its arena costs no resident vector and no
// table; then smaller ranges of streamed points (a streamed MSM's arena shrinks with its range),
// and two of a, b, c on the device only where nothing else fits (or, with synthesis on the device,
// where two let B2 run beside A, B1 and C with nothing else given up). Where even that does not
// fit, all vectors streamed at the default range (the upload is then refused on the estimate). The
// worker's buffers count because their MSM arenas grow with a resident key (several GB each at
// 2^24): a key chosen on its own points could fill the budget and leave its workers waiting for
// room that never comes. The buffers are reserved in the device budget, not the key budget, when a
// proof runs (gpu_prover_backend.cpp, at the key's range).
//
// Synthesis on the device keeps the matrices A and B resident (gpu/abc_device.hpp: 6 bytes an entry
// where a matrix has few distinct values, 36 otherwise, plus 4 a row; 1.6 GiB at 2^26 for a
// mostly-0/1 circuit, 7.3 GiB with every value distinct). Where that leaves no placement with a
// worker's buffers, the key synthesizes on the host into pinned memory instead, as `cuzk bench
// prove --synthesis host-pinned` does in the same budget: slower per proof (the CPU computes a, b,
// c), but the alternative is a key on the device that no proof can use.
template <class C>
placement place_on(const key_material<C>& m, groth16::gpu_key_options o, uint64_t budget) {
  o.workspace = groth16::key_workspace::own;  // what estimate_device_bytes counts for one worker
  auto placed = groth16::fit_to_budget<C>(m.view, o, budget);
  if (!placed && o.synthesis == groth16::synthesis_place::device) {
    groth16::gpu_key_options on_host = o;
    on_host.synthesis = groth16::synthesis_place::host_pinned;
    if (auto fits = groth16::fit_to_budget<C>(m.view, on_host, budget)) placed = std::move(fits);
  }
  if (!placed)
    return {o.synthesis, groth16::key_vector_set::all(), 0, groth16::choose_twiddles<C>(m.view, o, budget), false,
            groth16::abc_on_device::three};
  return {placed->synthesis,  placed->streamed, placed->stream_chunk_points,
          placed->twiddles,   placed->b2_beside, placed->abc};
}

template <class C>
result<std::shared_ptr<const device_key>> make(const key_material<C>& m, int ordinal,
                                               groth16::gpu_key_options o) {
  auto k = groth16::gpu_proving_key<C>::create(m.view, ordinal, std::move(o));
  if (!k) return k.error();
  return std::shared_ptr<const device_key>(std::make_shared<gpu_device_key>(std::move(k).value()));
}

}  // namespace

std::string gpu_device_key::placement() const {
  return std::visit(
      [](const auto& k) {
        const auto streamed = k.streamed();
        return "streamed: " + (streamed.empty() ? std::string("none") : streamed.to_string()) +
               (streamed.empty() ? "" : " in ranges of " + std::to_string(k.stream_chunk_points()) + " points") +
               "; twiddles " + (k.twiddles() == gpu::ntt_memory::compact ? "compact" : "tables") + "; B2 " +
               (k.b2_beside() ? "beside A, B1, C" : "in turn") + "; a, b, c on the device: " +
               groth16::abc_on_device_name(k.abc()) + "; synthesis " + groth16::synthesis_place_name(k.synthesis());
      },
      key);
}

groth16::gpu_key_options gpu_uploader::key_options() const {
  groth16::gpu_key_options o;
  o.synthesis = place_;
  o.workspace = groth16::key_workspace::none;
  o.streamed = always_streamed_;
  return o;
}

uint64_t gpu_uploader::estimate_bytes(const loaded_key& key, uint64_t budget) const {
  const auto o = key_options();
  auto estimate = [&](const auto& m) { return known_device_bytes(m, o, place_on(m, o, budget)); };
  if (const auto* m = key.get<bn254>()) return estimate(*m);
  return estimate(*key.get<bls12_381>());
}

uint64_t gpu_uploader::estimate_host_bytes(const loaded_key& key, uint64_t budget) const {
  const auto o = key_options();
  auto streamed_bytes = [&](const auto& m) -> uint64_t { return point_bytes(m, place_on(m, o, budget).streamed); };
  if (const auto* m = key.get<bn254>()) return streamed_bytes(*m);
  return streamed_bytes(*key.get<bls12_381>());
}

result<std::shared_ptr<const device_key>> gpu_uploader::upload(const loaded_key& key, int slot,
                                                               const device_slot& where) {
  if (slot < 0 || static_cast<std::size_t>(slot) >= slots_->slots.size())
    return status(errc::invalid_argument, "gpu uploader: no slot " + std::to_string(slot));
  groth16::gpu_key_options o = key_options();
  o.kernel_lock = slots_->slots[slot]->kernel_lock;
  // The shape is recorded once the copy exists: a failed upload puts no proof on the host's
  // synthesis.
  auto place_and_make = [&]<class C>(const key_material<C>& m) -> result<std::shared_ptr<const device_key>> {
    const placement p = place_on(m, o, where.budget);
    o.synthesis = p.synthesis;
    o.streamed = p.streamed;
    o.stream_chunk_points = p.chunk_points;
    o.twiddles = p.twiddles;
    o.b2_beside = p.b2_beside;
    o.abc = p.abc;
    auto k = make<C>(m, where.ordinal, std::move(o));
    if (k && p.synthesis != place_)
      slots_->host_synthesis.add({formats::curve_id_of<C>, m.view.n_vars, m.view.domain_size});
    return k;
  };
  if (const auto* m = key.get<bn254>()) return place_and_make(*m);
  return place_and_make(*key.get<bls12_381>());
}

}  // namespace cuzk::engine
