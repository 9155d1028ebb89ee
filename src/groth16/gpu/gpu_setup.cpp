// SPDX-License-Identifier: MIT OR Apache-2.0
// The GPU fixed-base engine of a development setup (see gpu_setup.hpp).
#include "groth16/gpu/gpu_setup.hpp"

#include <memory>

#include "gpu/fixed_base.hpp"
#include "groth16/fixed_base.hpp"

namespace cuzk::groth16 {

namespace {

// The device copy of G's comb table for `count` points, behind a shared pointer the engine's
// function keeps.
template <class G>
result<std::shared_ptr<const gpu::device_fixed_base<G>>> device_table(int device, std::size_t count) {
  const fixed_base_table<G> table(G::generator, fixed_base_table<G>::choose_window(count));
  auto made = gpu::device_fixed_base<G>::create(device, table.entries(), table.window_bits());
  if (!made) return made.error();
  return std::make_shared<const gpu::device_fixed_base<G>>(std::move(made).value());
}

}  // namespace

template <class Curve>
result<fixed_base_engine<Curve>> gpu_fixed_base_engine(int device, std::size_t g1_count, std::size_t g2_count) {
  auto g1 = device_table<g1_group<Curve>>(device, g1_count);
  if (!g1) return g1.error();
  auto g2 = device_table<g2_group<Curve>>(device, g2_count);
  if (!g2) return g2.error();
  fixed_base_engine<Curve> e;
  e.g1 = [t = *g1](auto scalars, auto out) { return t->mul(scalars, out); };
  e.g2 = [t = *g2](auto scalars, auto out) { return t->mul(scalars, out); };
  return e;
}

template result<fixed_base_engine<bn254>> gpu_fixed_base_engine<bn254>(int, std::size_t, std::size_t);
template result<fixed_base_engine<bls12_381>> gpu_fixed_base_engine<bls12_381>(int, std::size_t, std::size_t);

}  // namespace cuzk::groth16
