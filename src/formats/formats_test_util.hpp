// SPDX-License-Identifier: MIT OR Apache-2.0
// Test helpers for the binary formats: fixture paths, file bytes, taking a container apart into
// its sections and putting it back together (to build malformed files from good ones), temporary
// paths, and the error assertion every malformed-input test uses.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"

namespace cuzk::formats::testing {

inline const std::string snarkjs_dir = CUZK_TEST_DATA_DIR "/snarkjs";

// tests/data/snarkjs/<bn128|bls12381>[/poseidon]
template <class C>
std::string fixture_dir(bool poseidon) {
  return snarkjs_dir + "/" + C::snarkjs_name + (poseidon ? "/poseidon" : "");
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  return {std::istreambuf_iterator<char>(in), {}};
}

inline std::string read_text(const std::string& path) {
  const auto b = read_bytes(path);
  return {b.begin(), b.end()};
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// A fresh path in the test's temporary directory.
inline std::string temp_path(const std::string& name) {
  static int counter = 0;
  return (std::filesystem::path(::testing::TempDir()) /
          ("cuzk_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" + name))
      .string();
}

struct raw_section {
  uint32_t type;
  std::vector<uint8_t> payload;
};

// The sections of a well-formed container, in file order.
inline std::vector<raw_section> split_sections(const std::vector<uint8_t>& f) {
  uint32_t n;
  std::memcpy(&n, f.data() + 8, 4);
  std::vector<raw_section> out;
  std::size_t at = 12;
  for (uint32_t i = 0; i < n; ++i) {
    raw_section s;
    uint64_t size;
    std::memcpy(&s.type, f.data() + at, 4);
    std::memcpy(&size, f.data() + at + 4, 8);
    s.payload.assign(f.begin() + static_cast<std::ptrdiff_t>(at + 12),
                     f.begin() + static_cast<std::ptrdiff_t>(at + 12 + size));
    at += 12 + size;
    out.push_back(std::move(s));
  }
  return out;
}

inline void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + 4);
}

inline std::vector<uint8_t> join_sections(const std::string& magic, uint32_t version,
                                          const std::vector<raw_section>& sections) {
  std::vector<uint8_t> out(magic.begin(), magic.end());
  put_u32(out, version);
  put_u32(out, static_cast<uint32_t>(sections.size()));
  for (const auto& s : sections) {
    put_u32(out, s.type);
    const uint64_t size = s.payload.size();
    const auto* p = reinterpret_cast<const uint8_t*>(&size);
    out.insert(out.end(), p, p + 8);
    out.insert(out.end(), s.payload.begin(), s.payload.end());
  }
  return out;
}

inline raw_section& find_section(std::vector<raw_section>& secs, uint32_t type) {
  for (auto& s : secs)
    if (s.type == type) return s;
  ADD_FAILURE() << "no section " << type;
  return secs.front();
}

}  // namespace cuzk::formats::testing

// The result (or status) is an error with this code whose message contains every needle (copied
// into strings first: a needle may be a temporary's c_str()).
#define EXPECT_FORMAT_ERROR(res, code_, ...)                                                            \
  do {                                                                                                  \
    const auto& r_ = (res);                                                                             \
    ASSERT_FALSE(r_.is_ok()) << "expected an error";                                                    \
    const ::cuzk::status& s_ = ::cuzk::formats::testing::as_status(r_);                                 \
    EXPECT_EQ(s_.code(), code_) << s_.to_string();                                                      \
    for (const std::string& n_ : std::initializer_list<std::string>{__VA_ARGS__})                       \
      EXPECT_NE(s_.message().find(n_), std::string::npos) << "'" << n_ << "' not in: " << s_.message(); \
  } while (0)

namespace cuzk::formats::testing {
inline const status& as_status(const status& s) { return s; }
template <class T>
const status& as_status(const result<T>& r) {
  return r.error();
}
}  // namespace cuzk::formats::testing
