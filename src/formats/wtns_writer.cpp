// SPDX-License-Identifier: MIT OR Apache-2.0
// The .wtns encoder for values held as bytes; see wtns_writer.hpp.
#include "formats/wtns_writer.hpp"

#include <cstring>
#include <string_view>

#include "base/bulk_array.hpp"

#include "formats/file_io.hpp"

namespace cuzk::formats {

namespace {

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

}  // namespace

std::size_t wtns_values_offset(std::size_t n8) { return 12 + 12 + 4 + n8 + 4 + 12; }

result<std::vector<uint8_t>> wtns_with_room(std::span<const uint8_t> prime_le, std::size_t count) {
  const std::size_t n8 = prime_le.size();
  if (n8 == 0 || n8 % 4 != 0 || count > UINT32_MAX)
    return status(errc::invalid_argument, "a witness of " + std::to_string(count) + " values of " + std::to_string(n8) +
                                              " bytes cannot be a .wtns");
  const std::size_t total = wtns_values_offset(n8) + count * n8;
  std::vector<uint8_t> out;
  out.reserve(total);
  // The advice covers the whole pages inside the allocation (malloc's block starts past a page's
  // start).
  const auto first = (reinterpret_cast<std::uintptr_t>(out.data()) + 4095) & ~std::uintptr_t{4095};
  const auto end = reinterpret_cast<std::uintptr_t>(out.data()) + total;
  if (total >= bulk_huge_page && end > first) advise_huge_pages(reinterpret_cast<void*>(first), (end - first) & ~std::uintptr_t{4095});
  out.insert(out.end(), {'w', 't', 'n', 's'});
  put_u32(out, 2);  // version
  put_u32(out, 2);  // sections
  put_u32(out, 1);  // section 1: n8, the prime, the number of values
  put_u64(out, 4 + n8 + 4);
  put_u32(out, static_cast<uint32_t>(n8));
  out.insert(out.end(), prime_le.begin(), prime_le.end());
  put_u32(out, static_cast<uint32_t>(count));
  put_u32(out, 2);  // section 2: the values
  put_u64(out, count * n8);
  out.resize(total);
  return out;
}

result<std::vector<uint8_t>> encode_wtns(std::span<const uint8_t> prime_le, std::span<const uint8_t> values) {
  const std::size_t n8 = prime_le.size();
  if (n8 == 0 || n8 % 4 != 0 || values.size() % n8 != 0 || values.size() / n8 > UINT32_MAX)
    return status(errc::invalid_argument, "a witness of " + std::to_string(values.size()) +
                                              " bytes is not a whole number of values of " + std::to_string(n8) + " bytes");
  auto out = wtns_with_room(prime_le, values.size() / n8);
  if (!out) return out.error();
  if (!values.empty()) std::memcpy(out->data() + wtns_values_offset(n8), values.data(), values.size());
  return out;
}

status write_wtns_bytes(const std::string& path, std::span<const uint8_t> prime_le, std::span<const uint8_t> values) {
  auto bytes = encode_wtns(prime_le, values);
  if (!bytes) return bytes.error().with_context(path);
  return write_file_atomically(path, std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
}

}  // namespace cuzk::formats
