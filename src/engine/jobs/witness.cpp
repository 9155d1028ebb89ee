// SPDX-License-Identifier: MIT OR Apache-2.0
// Witness checks and reading (see witness.hpp).
#include "engine/jobs/witness.hpp"

#include <xxhash.h>

#include <cstring>

#include "base/thread_pool.hpp"
#include "formats/binfile.hpp"
#include "formats/file_io.hpp"
#include "formats/wtns.hpp"
#include "witness/fnv1a.hpp"

namespace cuzk::engine {

namespace {

// The values out of the file's bytes, split across the global pool: at 2^22 a single thread's copy,
// first touch of the destination included, was most of a proof's host time on an H200's host
// (docs/gpu/proof.md, 'Witness values in memory').
any_witness copy_values(const formats::wtns& w, formats::curve_id curve) {
  using repr = bn254::fr::repr;
  static_assert(sizeof(repr) == sizeof(formats::fr_bytes), "a value is its 32 stored bytes, little-endian");
  any_witness out;
  out.curve = curve;
  out.values = bulk_array<repr>(w.size());
  const formats::fr_bytes* from = w.values().data();
  repr* to = out.values.data();
  thread_pool::global().parallel_for(
      w.size(),
      [&](std::size_t b, std::size_t e) {
        std::memcpy(static_cast<void*>(to + b), from + b, (e - b) * sizeof(repr));
      },
      std::size_t{1} << 15);
  return out;
}

}  // namespace

uint64_t max_witness_bytes(const key_summary& key) {
  // 76 header bytes before the values (witness.hpp) at 32 bytes per value on both curves, plus
  // 1 MiB for extra sections.
  return 76 + uint64_t{32} * key.n_vars + (uint64_t{1} << 20);
}

namespace {

// The engine's copy of an inline witness, named in messages as the submit named it (the spool's
// path is the daemon's, witness_spool.hpp): "inline witness".
result<witness_file> open_spooled(const std::string& path) {
  const std::string name = "inline witness";
  auto m = formats::mapped_file::open(path);
  if (!m) return hide_path(m.error(), path, name);
  auto f = formats::binfile::from_mapping(std::move(m).value(), name, "wtns", 2);
  if (!f) return f.error();
  auto w = formats::wtns::from_binfile(std::move(f).value());
  if (!w) return w.error();
  return witness_file{{}, std::move(w).value()};
}

}  // namespace

result<witness_file> open_witness(const std::string& path, witness_origin origin, const witness_dirs& dirs,
                                  const key_summary& key) {
  if (origin == witness_origin::spooled) return open_spooled(path);
  auto bytes = dirs.read(path, max_witness_bytes(key), witness_file_lead);
  if (!bytes) return bytes.error();
  // The magic and version formats::wtns::open reads, over the bytes read.
  auto f = formats::binfile::borrow({bytes->data() + witness_file_lead, bytes->size() - witness_file_lead}, path,
                                    "wtns", 2);
  if (!f) return f.error();
  auto w = formats::wtns::from_binfile(std::move(f).value());
  if (!w) return w.error();
  return witness_file{std::move(bytes).value(), std::move(w).value()};
}

result<formats::wtns> witness_from_bytes(std::vector<uint8_t> bytes, const std::string& name) {
  // The magic and version formats::wtns::open reads.
  auto f = formats::binfile::from_bytes(std::move(bytes), name, "wtns", 2);
  if (!f) return f.error();
  return formats::wtns::from_binfile(std::move(f).value());
}

status check_inline_witness(std::span<const uint8_t> bytes, const key_summary& key, const std::string& what) {
  const uint64_t limit = max_witness_bytes(key);
  if (bytes.size() > limit)
    return status(errc::invalid_argument,
                  what + ": inline witness: expected at most " + std::to_string(limit) +
                      " bytes (a .wtns of nVars = " + std::to_string(key.n_vars) + " values), found " +
                      std::to_string(bytes.size()));
  // The magic and version formats::wtns::open reads; the name is the partition, since the bytes
  // have no file of their own yet.
  auto f = formats::binfile::borrow(bytes, what + ": inline witness", "wtns", 2);
  if (!f) return f.error();
  auto w = formats::wtns::from_binfile(std::move(f).value());
  if (!w) return w.error();
  CUZK_TRY(w->check_fits(key.curve, key.n_vars, "the circuit's key"));
  return w->validate();
}

result<any_witness> read_checked_inline_witness(std::span<const uint8_t> bytes, const key_summary& key,
                                                const std::string& what) {
  auto f = formats::binfile::borrow(bytes, what + ": inline witness", "wtns", 2);
  if (!f) return f.error();
  auto w = formats::wtns::from_binfile(std::move(f).value());
  if (!w) return w.error();
  CUZK_TRY(w->check_fits(key.curve, key.n_vars, "the circuit's key"));
  return copy_values(*w, key.curve);
}

status check_witness(const formats::wtns& w, const key_summary& key, const std::string& what) {
  CUZK_TRY(w.check_fits(key.curve, key.n_vars, "the circuit's key").with_context(what));
  CUZK_TRY(w.validate().with_context(what));
  return status::ok();
}

result<any_witness> read_witness(const formats::wtns& w, const key_summary& key) {
  CUZK_TRY(w.check_fits(key.curve, key.n_vars, "the circuit's key"));
  CUZK_TRY(w.validate());
  return copy_values(w, key.curve);
}

result<any_witness> read_witness(witness_file&& file, const key_summary& key) {
  const formats::wtns& w = file.wtns;
  CUZK_TRY(w.check_fits(key.curve, key.n_vars, "the circuit's key"));
  CUZK_TRY(w.validate());
  const auto* values = reinterpret_cast<const uint8_t*>(w.values().data());
  const uint8_t* block = file.bytes.data();
  if (block != nullptr && values >= block && values < block + file.bytes.size()) {
    any_witness out;
    out.curve = key.curve;
    out.values = bulk_array<bn254::fr::repr>::adopt(file.bytes, static_cast<std::size_t>(values - block), w.size());
    if (out.values.size() == w.size()) return out;  // else misaligned: the bytes are still the file's
  }
  return copy_values(w, key.curve);
}

status hide_path(const status& s, const std::string& path, const std::string& stand_in) {
  if (path.empty()) return s;
  std::string m = s.message();
  for (std::size_t at = 0; (at = m.find(path, at)) != std::string::npos; at += stand_in.size())
    m.replace(at, path.size(), stand_in);
  return status(s.code(), std::move(m));
}

namespace {

std::string hex_digits(uint64_t v, std::string out) {
  static constexpr char hex[] = "0123456789abcdef";
  for (int shift = 60; shift >= 0; shift -= 4) out += hex[(v >> shift) & 0xf];
  return out;
}

}  // namespace

std::string witness_digest(std::span<const uint8_t> bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return hex_digits(h.low64, hex_digits(h.high64, "xxh3-128:"));
}

bool witness_digest_matches(const std::string& stored, std::span<const uint8_t> bytes) {
  if (stored.empty()) return true;
  if (stored.rfind("xxh3-128:", 0) == 0) return stored == witness_digest(bytes);
  // The digest of jobs stored before XXH3: 64-bit FNV-1a over the bytes.
  if (stored.rfind("fnv1a64:", 0) == 0)
    return stored == hex_digits(witness::fnv1a_64({reinterpret_cast<const char*>(bytes.data()), bytes.size()}),
                                "fnv1a64:");
  return false;
}

}  // namespace cuzk::engine
