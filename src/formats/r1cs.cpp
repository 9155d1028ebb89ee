// SPDX-License-Identifier: MIT OR Apache-2.0
// The .r1cs reader; see r1cs.hpp.
#include "formats/r1cs.hpp"

#include "formats/byte_reader.hpp"
#include "formats/scalar_field_prefix.hpp"

namespace cuzk::formats {
namespace {

const char* const lc_names[3] = {"A", "B", "C"};

// Reads one linear combination's count and checks its terms; returns the view.
linear_combination read_lc(byte_reader& r, const r1cs_header& h, uint32_t constraint, int which) {
  const uint32_t n = r.u32("a linear combination's term count");
  if (!r.ok()) return {};
  if (n > r.remaining() / linear_combination::term_size) {
    r.fail(errc::format_error,
           "constraint " + std::to_string(constraint) + " " + lc_names[which] + ": " + std::to_string(n) +
               " terms of " + std::to_string(linear_combination::term_size) +
               " bytes run past the section's end (" + std::to_string(r.remaining()) + " bytes left)");
    return {};
  }
  const auto bytes = r.bytes(n * linear_combination::term_size, "terms");
  const linear_combination lc(bytes.data(), n);
  for (uint32_t i = 0; i < n; ++i) {
    const auto t = lc[i];
    const std::string where =
        "constraint " + std::to_string(constraint) + " " + lc_names[which] + " term " + std::to_string(i);
    if (t.wire >= h.n_wires) {
      r.fail(errc::out_of_range, where + ": wire id " + std::to_string(t.wire) +
                                     " not below nWires = " + std::to_string(h.n_wires));
      return {};
    }
    if (t.coef->integer() >= h.prime) {
      r.fail(errc::out_of_range, where + ": coefficient " + t.coef->integer().to_decimal() +
                                     " not below r = " + h.prime.to_decimal());
      return {};
    }
  }
  return lc;
}

}  // namespace

result<r1cs> r1cs::open(const std::string& path) {
  auto f = binfile::open(path, "r1cs", 1);
  if (!f) return f.error();
  return from_binfile(std::move(*f));
}

result<r1cs> r1cs::from_binfile(binfile file) {
  r1cs c(std::move(file));
  auto& h = c.header_;
  {
    const auto s = c.file_.section(1, "header");
    if (!s) return s.error();
    byte_reader r(*s, c.file_.section_label(1, "header"));
    const auto prefix = read_scalar_field_prefix(r);
    if (!prefix) return prefix.error();
    h.n8 = prefix->n8;
    h.prime = prefix->prime;
    h.curve = prefix->curve;
    h.n_wires = r.u32("nWires");
    h.n_pub_out = r.u32("nPubOut");
    h.n_pub_in = r.u32("nPubIn");
    h.n_prv_in = r.u32("nPrvIn");
    h.n_labels = r.u64("nLabels");
    h.n_constraints = r.u32("nConstraints");
    CUZK_TRY(r.finish());
    const uint64_t declared = uint64_t{1} + h.n_pub_out + h.n_pub_in + h.n_prv_in;
    if (declared > h.n_wires) {
      return status(errc::format_error, r.where() +
                                            ": 1 + nPubOut + nPubIn + nPrvIn = " + std::to_string(declared) +
                                            " exceeds nWires = " + std::to_string(h.n_wires));
    }
  }
  const auto s = c.file_.section(2, "constraints");
  if (!s) return s.error();
  byte_reader r(*s, c.file_.section_label(2, "constraints"));
  for (uint32_t i = 0; i < h.n_constraints && r.ok(); ++i) {
    for (int k = 0; k < 3; ++k) (void)read_lc(r, h, i, k);
  }
  CUZK_TRY(r.finish());
  c.constraints_ = *s;
  return c;
}

void r1cs::constraint_iterator::load() {
  at_ = next_;
  if (at_ == end_) return;
  const uint8_t* p = at_;
  linear_combination* lcs[3] = {&cur_.a, &cur_.b, &cur_.c};
  for (auto* lc : lcs) {
    uint32_t n;
    std::memcpy(&n, p, 4);
    *lc = linear_combination(p + 4, n);
    p += 4 + std::size_t{n} * linear_combination::term_size;
  }
  next_ = p;
}

}  // namespace cuzk::formats
