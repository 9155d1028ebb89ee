// SPDX-License-Identifier: MIT OR Apache-2.0
// Loading a proving key into a tier (see loaded_key.hpp).
#include "engine/keys/loaded_key.hpp"

#include <chrono>
#include <cstring>
#include <vector>

#include "base/enum_names.hpp"
#include "formats/binfile.hpp"
#include "formats/curve_id.hpp"

namespace cuzk::engine {

const char* key_tier_name(key_tier t) noexcept {
  static constexpr auto words = words_of<key_tier::device>({"cold", "warm", "hot", "device"});
  return words.name(t);
}

namespace {

template <class C>
uint64_t point_section_bytes(const groth16::proving_key_view<C>& v) {
  return (v.a.size() + v.b1.size() + v.c.size() + v.h.size()) * sizeof(g1_affine<C>) +
         v.b2.size() * sizeof(g2_affine<C>);
}

// The view's header part (everything but the point spans).
template <class C>
groth16::proving_key_view<C> header_view(const formats::zkey<C>& zk,
                                         const synth::constraint_matrices<typename C::fr>* m) {
  const auto& h = zk.header();
  groth16::proving_key_view<C> v;
  v.n_vars = zk.n_vars();
  v.n_public = zk.n_public();
  v.domain_size = zk.domain_size();
  v.alpha1 = h.alpha1;
  v.beta1 = h.beta1;
  v.delta1 = h.delta1;
  v.beta2 = h.beta2;
  v.gamma2 = h.gamma2;
  v.delta2 = h.delta2;
  v.matrices = m;
  return v;
}

template <class C>
void point_spans_from(groth16::proving_key_view<C>& v, const formats::zkey<C>& zk) {
  v.a = zk.a();
  v.b1 = zk.b1();
  v.b2 = zk.b2();
  v.c = zk.c();
  v.h = zk.h();
}

// The zkey at `path`, mapped in place or (with a copy_dir) from a private copy whose sections are
// all aligned, so that no point section is copied into memory again (binfile::open_aligned_copy).
template <class C>
result<formats::zkey<C>> open_zkey(const std::string& path, const std::string& copy_dir) {
  if (copy_dir.empty()) return formats::zkey<C>::open(path);
  auto f = formats::binfile::open_aligned_copy(path, copy_dir, "zkey", 1);
  if (!f) return f.error();
  return formats::zkey<C>::from_binfile(std::move(f).value());
}

}  // namespace

uint64_t loaded_key::hot_bytes() const noexcept { return point_bytes_ + matrix_bytes_; }

template <class C>
result<std::shared_ptr<const loaded_key>> loaded_key::load_warm_as(const std::string& path,
                                                                   const key_summary& expect,
                                                                   point_check check,
                                                                   const std::string& copy_dir,
                                                                   const step_done& step) {
  auto t0 = std::chrono::steady_clock::now();
  // Each part's end, told to `step` with its seconds; the clock restarts for the next.
  auto done = [&](const char* what, uint64_t bytes) {
    const auto now = std::chrono::steady_clock::now();
    if (step) step(what, bytes, std::chrono::duration<double>(now - t0).count());
    t0 = now;
  };
  auto zk = open_zkey<C>(path, copy_dir);
  if (!zk) return zk.error();
  done(copy_dir.empty() ? "map" : "private copy", zk->file().bytes().size());
  // The file must still hold the key its id was registered with: one overwritten in place would
  // give proofs that pass the daemon's check against the new key but not the verifier's of the key
  // registered (docs/HARDENING.md, finding 21). Checked on the bytes loaded (the private copy too).
  if (!expect.digest.empty()) {
    const std::string now = key_digest(zk->section_bytes(formats::zkey_header), zk->section_bytes(formats::zkey_ic));
    if (now != expect.digest)
      return status(errc::failed_precondition,
                    path + ": the key changed since it was registered (digest " + expect.digest +
                        " registered, " + now + " in the file now): its id proves with no other key; "
                        "register the file again with --replace to prove with the new key");
  }
  if (zk->n_vars() != expect.n_vars || zk->n_public() != expect.n_public ||
      zk->domain_size() != expect.domain_size)
    return status(errc::format_error,
                  path + ": the key changed since it was registered (nVars/nPublic/domainSize " +
                      std::to_string(expect.n_vars) + "/" + std::to_string(expect.n_public) + "/" +
                      std::to_string(expect.domain_size) + ", found " + std::to_string(zk->n_vars()) + "/" +
                      std::to_string(zk->n_public()) + "/" + std::to_string(zk->domain_size()) + ")");
  if (check == point_check::on_curve) {
    CUZK_TRY(zk->validate_points(formats::subgroup_check::skip));
    done("point check", zk->file().bytes().size());
  }
  auto m = synth::matrices_from_zkey<typename C::fr>(zk->section_bytes(formats::zkey_coefs), zk->n_vars(),
                                                     zk->domain_size());
  if (!m) return m.error().with_context(path);
  done("matrices", m->a.bytes() + m->b.bytes());

  std::shared_ptr<loaded_key> k(new loaded_key());
  key_material<C> mat;
  mat.vk = std::make_shared<const formats::verification_key<C>>(formats::verification_key_of(*zk));
  mat.matrices = std::make_shared<const synth::constraint_matrices<typename C::fr>>(std::move(m).value());
  auto owned_zk = std::make_shared<const formats::zkey<C>>(std::move(zk).value());
  mat.view = header_view(*owned_zk, mat.matrices.get());
  point_spans_from(mat.view, *owned_zk);
  CUZK_TRY(mat.view.validate().with_context(path));
  k->matrix_bytes_ = mat.matrices->a.bytes() + mat.matrices->b.bytes();
  k->point_bytes_ = point_section_bytes(mat.view);
  k->mapped_ = owned_zk->file().bytes().size();
  k->owned_ = owned_zk->copied_bytes() + k->matrix_bytes_;
  mat.zk = std::move(owned_zk);
  k->m_ = std::move(mat);
  k->tier_ = key_tier::warm;
  k->path_ = path;
  k->copy_dir_ = copy_dir;
  return std::shared_ptr<const loaded_key>(std::move(k));
}

result<std::shared_ptr<const loaded_key>> loaded_key::load_warm(const std::string& path,
                                                                const key_summary& expect, point_check check,
                                                                const std::string& copy_dir, const step_done& step) {
  return formats::with_curve(expect.curve, [&]<class C>() { return load_warm_as<C>(path, expect, check, copy_dir, step); });
}

template <class C>
result<std::shared_ptr<const loaded_key>> loaded_key::make_hot_as(const loaded_key& from,
                                                                  const key_material<C>& src,
                                                                  host_allocator& alloc,
                                                                  const copy_progress& progress) {
  const auto& sv = src.view;
  auto block = alloc.allocate(from.point_bytes_);
  if (!block) return block.error().with_context(from.path_);
  auto* p = static_cast<uint8_t*>(block->data());
  // Each vector's place in the block; the bytes move below, all five at once on every core.
  std::vector<copy_range> ranges;
  auto copy = [&p, &ranges](auto span) {
    using T = typename decltype(span)::element_type;
    const std::size_t n = span.size_bytes();
    if (n != 0) ranges.push_back({p, span.data(), n});
    std::span<const T> out(reinterpret_cast<const T*>(p), span.size());
    p += n;
    return out;
  };
  key_material<C> mat;
  mat.matrices = src.matrices;
  mat.vk = src.vk;
  mat.view = sv;
  mat.view.a = copy(sv.a);
  mat.view.b1 = copy(sv.b1);
  mat.view.b2 = copy(sv.b2);
  mat.view.c = copy(sv.c);
  mat.view.h = copy(sv.h);
  parallel_copy(ranges, 0, progress);
  mat.points = std::move(block).value();

  std::shared_ptr<loaded_key> k(new loaded_key());
  k->matrix_bytes_ = from.matrix_bytes_;
  k->point_bytes_ = from.point_bytes_;
  k->mapped_ = 0;
  k->owned_ = from.point_bytes_ + from.matrix_bytes_;
  k->m_ = std::move(mat);
  k->tier_ = key_tier::hot;
  k->path_ = from.path_;
  k->copy_dir_ = from.copy_dir_;
  return std::shared_ptr<const loaded_key>(std::move(k));
}

result<std::shared_ptr<const loaded_key>> loaded_key::make_hot(const loaded_key& from, host_allocator& alloc,
                                                               const copy_progress& progress) {
  return formats::with_curve(from.curve(), [&]<class C>() { return make_hot_as<C>(from, *from.get<C>(), alloc, progress); });
}

template <class C>
result<std::shared_ptr<const loaded_key>> loaded_key::make_warm_as(const loaded_key& from,
                                                                   const key_material<C>& src) {
  auto zk = open_zkey<C>(from.path_, from.copy_dir_);
  if (!zk) return zk.error();
  if (zk->n_vars() != src.view.n_vars || zk->domain_size() != src.view.domain_size)
    return status(errc::format_error, from.path_ + ": the key file changed while it was loaded");
  auto owned_zk = std::make_shared<const formats::zkey<C>>(std::move(zk).value());
  key_material<C> mat;
  mat.matrices = src.matrices;
  mat.vk = src.vk;
  mat.view = src.view;
  point_spans_from(mat.view, *owned_zk);
  std::shared_ptr<loaded_key> k(new loaded_key());
  k->matrix_bytes_ = from.matrix_bytes_;
  k->point_bytes_ = from.point_bytes_;
  k->mapped_ = owned_zk->file().bytes().size();
  k->owned_ = owned_zk->copied_bytes() + from.matrix_bytes_;
  mat.zk = std::move(owned_zk);
  k->m_ = std::move(mat);
  k->tier_ = key_tier::warm;
  k->path_ = from.path_;
  k->copy_dir_ = from.copy_dir_;
  return std::shared_ptr<const loaded_key>(std::move(k));
}

result<std::shared_ptr<const loaded_key>> loaded_key::make_warm(const loaded_key& from) {
  return formats::with_curve(from.curve(), [&]<class C>() { return make_warm_as<C>(from, *from.get<C>()); });
}

}  // namespace cuzk::engine
