// SPDX-License-Identifier: MIT OR Apache-2.0
// The Groth16 .zkey reader; see zkey.hpp.
#include "formats/zkey.hpp"

#include <atomic>
#include <bit>
#include <cstring>

#include "base/thread_pool.hpp"
#include "formats/byte_reader.hpp"
#include "formats/snarkjs_points.hpp"

namespace cuzk::formats {
namespace {

const char* protocol_name(uint32_t p) {
  switch (p) {
    case 1:
      return "Groth16";
    case 2:
      return "PLONK";
    case 10:
      return "FFLONK";
    default:
      return "unknown";
  }
}

// q and r from the start of section 2, each checked to be a supported curve's, and the same one.
result<curve_id> header_curve(byte_reader& r) {
  const uint32_t n8q = r.u32("n8q");
  const auto q = r.bytes(n8q, "q");
  if (!r.ok()) return r.error();
  const auto cq = curve_from_base_prime(q, r.where());
  if (!cq) return cq.error();
  const uint32_t n8r = r.u32("n8r");
  const auto rr = r.bytes(n8r, "r");
  if (!r.ok()) return r.error();
  const auto cr = curve_from_scalar_prime(rr, r.where());
  if (!cr) return cr.error();
  if (*cq != *cr) {
    return status(errc::format_error,
                  r.where() + ": q is " + curve_name(*cq) + "'s but r is " + curve_name(*cr) + "'s");
  }
  const std::size_t want_n8q = *cq == curve_id::bn254 ? bn254::fq::num_bytes : bls12_381::fq::num_bytes;
  if (n8q != want_n8q || n8r != 32) {
    return status(errc::format_error, r.where() + ": n8q = " + std::to_string(n8q) +
                                          ", n8r = " + std::to_string(n8r) + ", expected " +
                                          std::to_string(want_n8q) + " and 32 for " + curve_name(*cq));
  }
  return *cq;
}

template <class G>
result<typename G::affine> header_point(byte_reader& r, const char* field) {
  const auto bytes = r.bytes(snarkjs::binary_size<G>, field);
  if (!r.ok()) return r.error();
  auto p = snarkjs::decode_binary<G>(bytes, subgroup_check::check);
  if (!p) return p.error().with_context(r.where() + ": " + field);
  return p;
}

// The lowest index in [0, n) for which bad(i), or n. Parallel over the global pool.
template <class Bad>
std::size_t first_failure(std::size_t n, const Bad& bad, std::size_t min_chunk) {
  std::atomic<std::size_t> first{n};
  thread_pool::global().parallel_for(
      n,
      [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e && i < first.load(std::memory_order_relaxed); ++i) {
          if (bad(i)) {
            std::size_t cur = first.load();
            while (i < cur && !first.compare_exchange_weak(cur, i)) {
            }
            return;
          }
        }
      },
      min_chunk);
  return first.load();
}

}  // namespace

result<curve_id> detect_curve(const std::string& zkey_path) {
  auto f = binfile::open(zkey_path, "zkey", 1);
  if (!f) return f.error();
  const auto s = f->section(zkey_header, "header");
  if (!s) return s.error();
  byte_reader r(*s, f->section_label(zkey_header, "header"));
  return header_curve(r);
}

template <class C>
result<zkey<C>> zkey<C>::open(const std::string& path) {
  auto f = binfile::open(path, "zkey", 1);
  if (!f) return f.error();
  return from_binfile(std::move(*f));
}

template <class C>
result<zkey<C>> zkey<C>::from_binfile(binfile file) {
  zkey k(std::move(file));
  CUZK_TRY(k.parse());
  return k;
}

template <class C>
template <class T>
result<std::span<const T>> zkey<C>::points_section(uint32_t id, const char* what, uint64_t count,
                                                   const char* count_expr) {
  const auto s = file_.section(id, what);
  if (!s) return s.error();
  const uint64_t want = count * sizeof(T);
  if (s->size() != want) {
    return status(errc::format_error, file_.section_label(id, what) + ": expected " + std::to_string(want) +
                                          " bytes (" + count_expr + " = " + std::to_string(count) +
                                          " points of " + std::to_string(sizeof(T)) + " bytes), found " +
                                          std::to_string(s->size()));
  }
  if (reinterpret_cast<std::uintptr_t>(s->data()) % alignof(T) == 0) {
    return std::span<const T>(reinterpret_cast<const T*>(s->data()), count);
  }
  auto copy = std::make_unique<uint64_t[]>((s->size() + 7) / 8);
  std::memcpy(copy.get(), s->data(), s->size());
  const T* p = reinterpret_cast<const T*>(copy.get());
  copies_.push_back(std::move(copy));
  copied_bytes_ += s->size();
  return std::span<const T>(p, count);
}

template <class C>
status zkey<C>::parse() {
  using G1 = g1_group<C>;
  using G2 = g2_group<C>;
  auto& h = header_;
  {
    const auto s = file_.section(zkey_protocol, "protocol");
    if (!s) return s.error();
    byte_reader r(*s, file_.section_label(zkey_protocol, "protocol"));
    const uint32_t protocol = r.u32("protocol");
    CUZK_TRY(r.finish());
    if (protocol != 1) {
      return {errc::unsupported, r.where() + ": protocol " + std::to_string(protocol) + " (" +
                                     protocol_name(protocol) + "), expected 1 (Groth16)"};
    }
  }
  {
    const auto s = file_.section(zkey_header, "header");
    if (!s) return s.error();
    byte_reader r(*s, file_.section_label(zkey_header, "header"));
    const auto curve = header_curve(r);
    if (!curve) return curve.error();
    if (*curve != curve_id_of<C>) {
      return {errc::invalid_argument, r.where() + ": a " + curve_name(*curve) + " key, read as " + C::name};
    }
    h.n8q = static_cast<uint32_t>(C::fq::num_bytes);
    h.n8r = 32;
    h.n_vars = r.u32("nVars");
    h.n_public = r.u32("nPublic");
    h.domain_size = r.u32("domainSize");
    if (!r.ok()) return r.error();
    if (h.domain_size < 2 || !std::has_single_bit(h.domain_size) ||
        std::countr_zero(h.domain_size) > static_cast<int>(C::fr::two_adicity)) {
      return {errc::format_error, r.where() + ": domainSize " + std::to_string(h.domain_size) +
                                      " is not a power of two between 2 and 2^" +
                                      std::to_string(C::fr::two_adicity)};
    }
    if (uint64_t{h.n_public} + 1 > h.n_vars) {
      return {errc::format_error, r.where() + ": nPublic + 1 = " + std::to_string(uint64_t{h.n_public} + 1) +
                                      " exceeds nVars = " + std::to_string(h.n_vars)};
    }
    // The order the code of snarkjs writes (not the one its header comment gives).
    auto alpha1 = header_point<G1>(r, "alpha1");
    if (!alpha1) return alpha1.error();
    auto beta1 = header_point<G1>(r, "beta1");
    if (!beta1) return beta1.error();
    auto beta2 = header_point<G2>(r, "beta2");
    if (!beta2) return beta2.error();
    auto gamma2 = header_point<G2>(r, "gamma2");
    if (!gamma2) return gamma2.error();
    auto delta1 = header_point<G1>(r, "delta1");
    if (!delta1) return delta1.error();
    auto delta2 = header_point<G2>(r, "delta2");
    if (!delta2) return delta2.error();
    CUZK_TRY(r.finish());
    h.alpha1 = *alpha1;
    h.beta1 = *beta1;
    h.beta2 = *beta2;
    h.gamma2 = *gamma2;
    h.delta1 = *delta1;
    h.delta2 = *delta2;
  }

  const uint64_t n_vars = h.n_vars, n_public = h.n_public;
  auto ic = points_section<g1a>(zkey_ic, "IC", n_public + 1, "nPublic + 1");
  if (!ic) return ic.error();
  ic_ = *ic;
  const auto ic_bytes = section_bytes(zkey_ic);
  for (std::size_t i = 0; i < ic_.size(); ++i) {
    const auto p =
        snarkjs::decode_binary<G1>(ic_bytes.subspan(i * sizeof(g1a), sizeof(g1a)), subgroup_check::check);
    if (!p)
      return p.error().with_context(file_.section_label(zkey_ic, "IC") + ": point " + std::to_string(i));
  }
  auto a = points_section<g1a>(zkey_a, "A", n_vars, "nVars");
  if (!a) return a.error();
  a_ = *a;
  auto b1 = points_section<g1a>(zkey_b1, "B1", n_vars, "nVars");
  if (!b1) return b1.error();
  b1_ = *b1;
  auto b2 = points_section<g2a>(zkey_b2, "B2", n_vars, "nVars");
  if (!b2) return b2.error();
  b2_ = *b2;
  auto c = points_section<g1a>(zkey_c, "C", n_vars - n_public - 1, "nVars - nPublic - 1");
  if (!c) return c.error();
  c_ = *c;
  auto hs = points_section<g1a>(zkey_h, "H", h.domain_size, "domainSize");
  if (!hs) return hs.error();
  h_ = *hs;

  {
    const auto s = file_.section(zkey_coefs, "coefs");
    if (!s) return s.error();
    byte_reader r(*s, file_.section_label(zkey_coefs, "coefs"));
    const uint64_t n = r.u32("nCoefs");
    if (!r.ok()) return r.error();
    const uint64_t want = 4 + n * sizeof(zkey_coef_record);
    if (s->size() != want) {
      return {errc::format_error, r.where() + ": expected " + std::to_string(want) +
                                      " bytes (4 + nCoefs = " + std::to_string(n) + " records of " +
                                      std::to_string(sizeof(zkey_coef_record)) + " bytes), found " +
                                      std::to_string(s->size())};
    }
    const uint8_t* p = s->data() + 4;
    if (reinterpret_cast<std::uintptr_t>(p) % alignof(zkey_coef_record) != 0) {
      auto copy = std::make_unique<uint64_t[]>((s->size() - 4 + 7) / 8);
      std::memcpy(copy.get(), p, s->size() - 4);
      p = reinterpret_cast<const uint8_t*>(copy.get());
      copies_.push_back(std::move(copy));
      copied_bytes_ += s->size() - 4;
    }
    coefs_ = {reinterpret_cast<const zkey_coef_record*>(p), static_cast<std::size_t>(n)};
  }

  if (file_.has(zkey_contributions)) {
    const auto s = file_.section(zkey_contributions, "contributions");
    if (!s) return s.error();
    byte_reader r(*s, file_.section_label(zkey_contributions, "contributions"));
    cs_hash_ = r.bytes(64, "csHash");
    n_contributions_ = r.u32("nContributions");
    if (!r.ok()) return r.error();
    contributions_ = s->subspan(r.position());
  }
  return status::ok();
}

template <class C>
std::span<const uint8_t> zkey<C>::section_bytes(uint32_t id) const {
  const auto s = file_.section(id);
  return s ? *s : std::span<const uint8_t>{};
}

template <class C>
result<zkey_coef<C>> zkey<C>::coef(std::size_t i) const {
  const zkey_coef_record& rec = coefs_[i];
  const auto where = [&] {
    return file_.section_label(zkey_coefs, "coefs") + ": record " + std::to_string(i);
  };
  if (rec.matrix > 1) {
    return status(errc::out_of_range,
                  where() + ": matrix " + std::to_string(rec.matrix) + ", expected 0 (A) or 1 (B)");
  }
  if (rec.constraint >= header_.domain_size) {
    return status(errc::out_of_range, where() + ": constraint " + std::to_string(rec.constraint) +
                                          " not below domainSize = " + std::to_string(header_.domain_size));
  }
  if (rec.signal >= header_.n_vars) {
    return status(errc::out_of_range, where() + ": signal " + std::to_string(rec.signal) +
                                          " not below nVars = " + std::to_string(header_.n_vars));
  }
  const auto v = rec.value.integer();
  if (v >= fr::modulus) {
    return status(errc::out_of_range,
                  where() + ": value " + v.to_decimal() + " not below r = " + fr::modulus.to_decimal());
  }
  // Stored c·R^2; from_montgomery reads it as the element c·R, and multiplying by the element
  // R^-1 (whose Montgomery form is the integer 1) leaves c.
  const fr c = fr::from_montgomery(v) * fr::from_montgomery(fr::repr::from_u64(1));
  return zkey_coef<C>{rec.matrix, rec.constraint, rec.signal, c};
}

template <class C>
status zkey<C>::validate_coefs() const {
  const std::size_t bad = first_failure(
      coefs_.size(), [&](std::size_t i) { return !coef(i).is_ok(); }, 1 << 12);
  if (bad == coefs_.size()) return status::ok();
  return coef(bad).error();
}

template <class C>
status zkey<C>::validate_points(subgroup_check check) const {
  const auto check_section = [&]<class G>(uint32_t id, const char* what) -> status {
    const auto bytes = section_bytes(id);
    constexpr std::size_t size = snarkjs::binary_size<G>;
    const auto decode = [&](std::size_t i) {
      return snarkjs::decode_binary<G>(bytes.subspan(i * size, size), check);
    };
    const std::size_t n = bytes.size() / size;
    const std::size_t bad = first_failure(
        n, [&](std::size_t i) { return !decode(i).is_ok(); }, 256);
    if (bad == n) return status::ok();
    return decode(bad).error().with_context(file_.section_label(id, what) + ": point " + std::to_string(bad));
  };
  using G1 = g1_group<C>;
  using G2 = g2_group<C>;
  CUZK_TRY(check_section.template operator()<G1>(zkey_ic, "IC"));
  CUZK_TRY(check_section.template operator()<G1>(zkey_a, "A"));
  CUZK_TRY(check_section.template operator()<G1>(zkey_b1, "B1"));
  CUZK_TRY(check_section.template operator()<G2>(zkey_b2, "B2"));
  CUZK_TRY(check_section.template operator()<G1>(zkey_c, "C"));
  CUZK_TRY(check_section.template operator()<G1>(zkey_h, "H"));
  return status::ok();
}

template class zkey<bn254>;
template class zkey<bls12_381>;

}  // namespace cuzk::formats
