// SPDX-License-Identifier: MIT OR Apache-2.0
// The .wtns reader; see wtns.hpp.
#include "formats/wtns.hpp"

#include <algorithm>
#include <atomic>

#include "base/own_threads.hpp"
#include "formats/byte_reader.hpp"
#include "formats/scalar_field_prefix.hpp"

namespace cuzk::formats {

result<wtns> wtns::open(const std::string& path) {
  auto f = binfile::open(path, "wtns", 2);
  if (!f) return f.error();
  return from_binfile(std::move(*f));
}

result<wtns> wtns::from_binfile(binfile file) {
  wtns w(std::move(file));
  auto& h = w.header_;
  const auto s1 = w.file_.section(1, "header");
  if (!s1) return s1.error();
  byte_reader r(*s1, w.file_.section_label(1, "header"));
  const auto prefix = read_scalar_field_prefix(r);
  if (!prefix) return prefix.error();
  h.n8 = prefix->n8;
  h.prime = prefix->prime;
  h.curve = prefix->curve;
  h.n_witness = r.u32("nWitness");
  CUZK_TRY(r.finish());

  const auto s2 = w.file_.section(2, "values");
  if (!s2) return s2.error();
  const uint64_t want = uint64_t{h.n_witness} * sizeof(fr_bytes);
  if (s2->size() != want) {
    return status(errc::format_error,
                  w.file_.section_label(2, "values") + ": witness length mismatch: the header says " +
                      std::to_string(h.n_witness) + " values (" + std::to_string(want) +
                      " bytes), the section holds " + std::to_string(s2->size()) + " bytes");
  }
  w.values_ = {reinterpret_cast<const fr_bytes*>(s2->data()), h.n_witness};
  return w;
}

std::size_t wtns::first_value_not_below_r(std::size_t begin, std::size_t end) const noexcept {
  for (std::size_t i = begin; i < end; ++i)
    if (values_[i].integer() >= header_.prime) return i;
  return end;
}

status wtns::validate() const {
  // The lowest bad index, whichever thread finds it.
  std::atomic<std::size_t> first_bad{values_.size()};
  run_chunks_on_own_threads(values_.size(), std::size_t{1} << 16, 8, [&](std::size_t b, std::size_t e) {
    const std::size_t i = first_value_not_below_r(b, std::min(e, first_bad.load(std::memory_order_relaxed)));
    std::size_t seen = first_bad.load();
    while (i < std::min(e, seen) && !first_bad.compare_exchange_weak(seen, i)) {
    }
  });
  const std::size_t i = first_bad.load();
  if (i == values_.size()) return status::ok();
  return {errc::out_of_range, file_.name() + ": witness value w[" + std::to_string(i) +
                                  "] = " + values_[i].integer().to_decimal() +
                                  " is not below r = " + header_.prime.to_decimal()};
}

status wtns::check_fits(curve_id curve, uint32_t n_vars, const std::string& key_name) const {
  if (curve != header_.curve) {
    return {errc::invalid_argument, file_.name() + ": a " + curve_name(header_.curve) + " witness, but " +
                                        key_name + " is a " + curve_name(curve) + " key"};
  }
  if (n_vars != header_.n_witness) {
    return {errc::invalid_argument,
            file_.name() + ": witness length mismatch: " + std::to_string(header_.n_witness) +
                " values, but " + key_name + " expects nVars = " + std::to_string(n_vars)};
  }
  return status::ok();
}

}  // namespace cuzk::formats
