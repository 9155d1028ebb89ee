// Witness checks and reading (see witness.hpp).
#include "engine/jobs/witness.hpp"

#include "formats/wtns.hpp"

namespace cuzk::engine {

namespace {

any_witness copy_values(const formats::wtns& w, formats::curve_id curve) {
  any_witness out;
  out.curve = curve;
  out.values.resize(w.size());
  for (std::size_t i = 0; i < out.values.size(); ++i) out.values[i] = w.value(i);
  return out;
}

}  // namespace

status check_witness_file(const std::string& path, const key_summary& key, const std::string& what) {
  auto w = formats::wtns::open(path);
  if (!w) return w.error().with_context(what);
  CUZK_TRY(w->check_fits(key.curve, key.n_vars, "the circuit's key").with_context(what));
  CUZK_TRY(w->validate().with_context(what));
  return status::ok();
}

result<any_witness> read_witness(const std::string& path, const key_summary& key) {
  auto w = formats::wtns::open(path);
  if (!w) return w.error();
  CUZK_TRY(w->check_fits(key.curve, key.n_vars, "the circuit's key"));
  CUZK_TRY(w->validate());
  return copy_values(*w, key.curve);
}

std::string witness_digest(std::span<const uint8_t> bytes) {
  uint64_t h = 0xcbf29ce484222325ull;  // the 64-bit FNV offset basis and prime
  for (const uint8_t b : bytes) h = (h ^ b) * 0x100000001b3ull;
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "fnv1a64:";
  for (int shift = 60; shift >= 0; shift -= 4) out += hex[(h >> shift) & 0xf];
  return out;
}

}  // namespace cuzk::engine
