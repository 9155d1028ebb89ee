// The device tier's GPU uploader (see gpu_device_key.hpp).
#include "engine/backends/gpu_device_key.hpp"

#include <bit>
#include <string>

namespace cuzk::engine {

namespace {

template <class Fr>
uint64_t csr_bytes(const synth::csr_matrix<Fr>& m) {
  return m.row_start.size() * sizeof(uint64_t) + m.col.size() * sizeof(uint32_t) + m.value.size() * sizeof(Fr);
}

template <class C>
uint64_t known_device_bytes(const key_material<C>& m) {
  const auto& v = m.view;
  const uint64_t points = (v.a.size() + v.b1.size() + v.c.size() + v.h.size()) * sizeof(g1_affine<C>) +
                          v.b2.size() * sizeof(g2_affine<C>);
  const uint64_t twiddles = groth16::gpu_ntt_plan_bytes<C>(v.domain_size);
  return points + twiddles + csr_bytes(m.matrices->a) + csr_bytes(m.matrices->b);
}

template <class C>
result<std::shared_ptr<const device_key>> make(const key_material<C>& m, int ordinal,
                                               groth16::gpu_key_options o) {
  auto k = groth16::gpu_proving_key<C>::create(m.view, ordinal, std::move(o));
  if (!k) return k.error();
  return std::shared_ptr<const device_key>(std::make_shared<gpu_device_key>(std::move(k).value()));
}

}  // namespace

uint64_t gpu_uploader::estimate_bytes(const loaded_key& key) const {
  if (const auto* m = key.get<bn254>()) return known_device_bytes(*m);
  return known_device_bytes(*key.get<bls12_381>());
}

result<std::shared_ptr<const device_key>> gpu_uploader::upload(const loaded_key& key, int slot,
                                                               const device_slot& where) {
  if (slot < 0 || static_cast<std::size_t>(slot) >= slots_->slots.size())
    return status(errc::invalid_argument, "gpu uploader: no slot " + std::to_string(slot));
  groth16::gpu_key_options o;
  o.synthesis = place_;
  o.kernel_lock = slots_->slots[slot]->kernel_lock;
  o.workspace = groth16::key_workspace::none;
  o.scratch = groth16::key_scratch::at_creation;
  std::lock_guard alloc(slots_->alloc_lock(where.ordinal));
  if (const auto* m = key.get<bn254>()) return make<bn254>(*m, where.ordinal, std::move(o));
  return make<bls12_381>(*key.get<bls12_381>(), where.ordinal, std::move(o));
}

}  // namespace cuzk::engine
