// SPDX-License-Identifier: MIT OR Apache-2.0
// Reading a zkey's header only (see key_summary.hpp). The layout is snarkjs's zkey reader and
// writer's: section 1 holds the protocol (1 = Groth16); section 2 starts n8q, q, n8r, r,
// nVars, nPublic, domainSize. formats::detect_curve checks the magic, the container and both primes.
#include "engine/jobs/key_summary.hpp"

#include <cstring>
#include <initializer_list>
#include <span>

#include "formats/binfile.hpp"
#include "formats/zkey.hpp"

namespace cuzk::engine {

namespace {
uint32_t le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace

// FNV-1a, 64 bits, over the sections in order (the offset basis and prime of the FNV spec).
std::string key_digest(std::span<const uint8_t> header, std::span<const uint8_t> ic) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const auto& part : {header, ic})
    for (const uint8_t b : part) h = (h ^ b) * 0x100000001b3ull;
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "fnv1a64:";
  for (int shift = 60; shift >= 0; shift -= 4) out += hex[(h >> shift) & 0xf];
  return out;
}

result<key_summary> read_key_summary(const std::string& zkey_path) {
  auto curve = formats::detect_curve(zkey_path);
  if (!curve) return curve.error();
  auto f = formats::binfile::open(zkey_path, "zkey", 1);
  if (!f) return f.error();
  auto proto = f->section(formats::zkey_protocol, "protocol");
  if (!proto) return proto.error();
  if (proto->size() < 4 || le32(proto->data()) != 1)
    return status(errc::unsupported, zkey_path + ": protocol: expected 1 (Groth16), found " +
                                         (proto->size() < 4 ? std::string("a truncated section")
                                                            : std::to_string(le32(proto->data()))));
  auto hdr = f->section(formats::zkey_header, "header");
  if (!hdr) return hdr.error();
  const auto& h = *hdr;
  // detect_curve read n8q, q, n8r, r from this section already.
  std::size_t off = 0;
  const uint32_t n8q = le32(h.data());
  off = 4 + n8q;
  const uint32_t n8r = le32(h.data() + off);
  off += 4 + n8r;
  if (h.size() < off + 12)
    return status(errc::format_error, f->section_label(formats::zkey_header, "header") +
                                          ": expected nVars, nPublic, "
                                          "domainSize after the primes, found " +
                                          std::to_string(h.size()) + " bytes");
  key_summary s;
  s.curve = *curve;
  s.n_vars = le32(h.data() + off);
  s.n_public = le32(h.data() + off + 4);
  s.domain_size = le32(h.data() + off + 8);
  s.file_bytes = f->bytes().size();
  s.sections = static_cast<uint32_t>(f->sections().size());
  // Missing or duplicated: 0, and the load that checks every section says what is wrong.
  if (auto coefs = f->section(formats::zkey_coefs, "coefs")) s.coef_bytes = coefs->size();
  auto ic = f->section(formats::zkey_ic, "IC");
  if (!ic) return ic.error();
  s.digest = key_digest(h, *ic);
  if (s.n_vars <= s.n_public)
    return status(errc::format_error, zkey_path + ": header: nVars " + std::to_string(s.n_vars) +
                                          " must exceed nPublic " + std::to_string(s.n_public));
  return s;
}

}  // namespace cuzk::engine
