// SPDX-License-Identifier: MIT OR Apache-2.0
// The Groth16 .zkey writer; see zkey_writer.hpp.
#include "formats/zkey_writer.hpp"

#include <algorithm>
#include <numeric>

#include "formats/binfile_writer.hpp"

namespace cuzk::formats {
namespace {

// Points are written as their object representation, which is the file's (zkey.hpp).
template <class T>
std::span<const uint8_t> as_bytes_of(std::span<const T> v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size_bytes()};
}
template <class T>
std::span<const uint8_t> as_bytes_of(const T& v) {
  return {reinterpret_cast<const uint8_t*>(&v), sizeof(T)};
}

template <class Fq>
void append_le(std::vector<uint8_t>& out, const typename Fq::repr& v) {
  uint8_t b[Fq::num_bytes];
  v.to_bytes_le(b);
  out.insert(out.end(), b, b + sizeof(b));
}
void append_u32(std::vector<uint8_t>& out, uint32_t v) {
  const auto b = as_bytes_of(v);
  out.insert(out.end(), b.begin(), b.end());
}

template <class C>
status check_sizes(const std::string& path, const groth16_key_data<C>& k) {
  const auto mismatch = [&](const char* field, std::size_t found, uint64_t want, const char* expr) {
    return status(errc::invalid_argument, path + ": key data: " + field + " has " + std::to_string(found) +
                                              " points, expected " + expr + " = " + std::to_string(want));
  };
  if (k.domain_size < 2 || (k.domain_size & (k.domain_size - 1)) != 0) {
    return {errc::invalid_argument, path + ": key data: domain_size " + std::to_string(k.domain_size) +
                                        " is not a power of two >= 2"};
  }
  if (uint64_t{k.n_public} + 1 > k.n_vars) {
    return {errc::invalid_argument,
            path + ": key data: n_public + 1 exceeds n_vars = " + std::to_string(k.n_vars)};
  }
  if (k.ic.size() != k.n_public + 1ull) return mismatch("ic", k.ic.size(), k.n_public + 1ull, "nPublic + 1");
  if (k.a.size() != k.n_vars) return mismatch("a", k.a.size(), k.n_vars, "nVars");
  if (k.b1.size() != k.n_vars) return mismatch("b1", k.b1.size(), k.n_vars, "nVars");
  if (k.b2.size() != k.n_vars) return mismatch("b2", k.b2.size(), k.n_vars, "nVars");
  if (k.c.size() != k.n_vars - k.n_public - 1ull)
    return mismatch("c", k.c.size(), k.n_vars - k.n_public - 1ull, "nVars - nPublic - 1");
  if (k.h.size() != k.domain_size) return mismatch("h", k.h.size(), k.domain_size, "domainSize");
  if (k.coefs.size() > UINT32_MAX)
    return {errc::invalid_argument, path + ": key data: more than 2^32 - 1 coefficients"};
  for (std::size_t i = 0; i < k.coefs.size(); ++i) {
    const auto& c = k.coefs[i];
    if (c.matrix > 1 || c.constraint >= k.domain_size || c.signal >= k.n_vars) {
      return {errc::invalid_argument,
              path + ": key data: coefs[" + std::to_string(i) + "] = (matrix " + std::to_string(c.matrix) +
                  ", constraint " + std::to_string(c.constraint) + ", signal " + std::to_string(c.signal) +
                  "): expected matrix 0 or 1, constraint < domainSize, signal < nVars"};
    }
  }
  return status::ok();
}

}  // namespace

template <class C>
status write_zkey(const std::string& path, const groth16_key_data<C>& k) {
  using fq = typename C::fq;
  using fr = typename C::fr;
  CUZK_TRY(check_sizes(path, k));
  auto w = binfile_writer::create(path, "zkey", 1);
  if (!w) return w.error();

  CUZK_TRY(w->begin_section(zkey_protocol));
  CUZK_TRY(w->write_u32(1));
  CUZK_TRY(w->end_section());

  std::vector<uint8_t> header;
  append_u32(header, static_cast<uint32_t>(fq::num_bytes));
  append_le<fq>(header, fq::modulus);
  append_u32(header, static_cast<uint32_t>(fr::num_bytes));
  append_le<fr>(header, fr::modulus);
  append_u32(header, k.n_vars);
  append_u32(header, k.n_public);
  append_u32(header, k.domain_size);
  for (const auto b : {as_bytes_of(k.alpha1), as_bytes_of(k.beta1), as_bytes_of(k.beta2),
                       as_bytes_of(k.gamma2), as_bytes_of(k.delta1), as_bytes_of(k.delta2)}) {
    header.insert(header.end(), b.begin(), b.end());
  }
  CUZK_TRY(w->write_section(zkey_header, header));
  CUZK_TRY(w->write_section(zkey_ic, as_bytes_of(std::span(k.ic))));

  // Sorted by constraint through an index permutation, so the caller's vector stays as it is.
  std::vector<uint32_t> order(k.coefs.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t x, uint32_t y) { return k.coefs[x].constraint < k.coefs[y].constraint; });
  // c·R^2 is the Montgomery form of the element c·R, and R (as an element) is from_canonical(R mod r).
  const fr r_elem = fr::from_canonical_unchecked(fr::r1);
  CUZK_TRY(w->begin_section(zkey_coefs));
  CUZK_TRY(w->write_u32(static_cast<uint32_t>(k.coefs.size())));
  std::vector<zkey_coef_record> chunk;
  chunk.reserve(std::min<std::size_t>(order.size(), 1 << 16));
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& c = k.coefs[order[i]];
    chunk.push_back(
        {c.matrix, c.constraint, c.signal, fr_bytes::from_integer((c.value * r_elem).montgomery())});
    if (chunk.size() == chunk.capacity() || i + 1 == order.size()) {
      CUZK_TRY(w->write(as_bytes_of(std::span<const zkey_coef_record>(chunk))));
      chunk.clear();
    }
  }
  CUZK_TRY(w->end_section());

  CUZK_TRY(w->write_section(zkey_a, as_bytes_of(std::span(k.a))));
  CUZK_TRY(w->write_section(zkey_b1, as_bytes_of(std::span(k.b1))));
  CUZK_TRY(w->write_section(zkey_b2, as_bytes_of(std::span(k.b2))));
  CUZK_TRY(w->write_section(zkey_c, as_bytes_of(std::span(k.c))));
  CUZK_TRY(w->write_section(zkey_h, as_bytes_of(std::span(k.h))));

  CUZK_TRY(w->begin_section(zkey_contributions));
  CUZK_TRY(w->write(k.cs_hash));
  CUZK_TRY(w->write_u32(k.n_contributions));
  CUZK_TRY(w->write(k.contributions));
  CUZK_TRY(w->end_section());
  return w->commit();
}

template <class C>
result<groth16_key_data<C>> key_data_of(const zkey<C>& key) {
  groth16_key_data<C> k;
  const auto& h = key.header();
  k.n_vars = h.n_vars;
  k.n_public = h.n_public;
  k.domain_size = h.domain_size;
  k.alpha1 = h.alpha1;
  k.beta1 = h.beta1;
  k.beta2 = h.beta2;
  k.gamma2 = h.gamma2;
  k.delta1 = h.delta1;
  k.delta2 = h.delta2;
  k.ic.assign(key.ic().begin(), key.ic().end());
  k.a.assign(key.a().begin(), key.a().end());
  k.b1.assign(key.b1().begin(), key.b1().end());
  k.b2.assign(key.b2().begin(), key.b2().end());
  k.c.assign(key.c().begin(), key.c().end());
  k.h.assign(key.h().begin(), key.h().end());
  k.coefs.reserve(key.coef_records().size());
  for (std::size_t i = 0; i < key.coef_records().size(); ++i) {
    auto c = key.coef(i);
    if (!c) return c.error();
    k.coefs.push_back(*c);
  }
  if (key.cs_hash().size() == k.cs_hash.size())
    std::copy(key.cs_hash().begin(), key.cs_hash().end(), k.cs_hash.begin());
  k.n_contributions = key.n_contributions();
  k.contributions.assign(key.contributions().begin(), key.contributions().end());
  return k;
}

template status write_zkey<bn254>(const std::string&, const groth16_key_data<bn254>&);
template status write_zkey<bls12_381>(const std::string&, const groth16_key_data<bls12_381>&);
template result<groth16_key_data<bn254>> key_data_of<bn254>(const zkey<bn254>&);
template result<groth16_key_data<bls12_381>> key_data_of<bls12_381>(const zkey<bls12_381>&);

}  // namespace cuzk::formats
