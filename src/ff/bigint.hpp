// SPDX-License-Identifier: MIT OR Apache-2.0
// Fixed-width unsigned integers of N 64-bit limbs, little-endian.
//
// These are the plain (non-Montgomery) integers that field constants are written in and that
// canonical encodings decode to. Everything here is constexpr so that a curve's derived constants
// (R mod p, R^2 mod p, -p^-1 mod 2^64, the 2-adic decomposition of p - 1) are computed by the
// compiler from the one modulus written in the curve's header. Speed does not matter here; the
// field arithmetic in fp.hpp does its own carry chains.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cuzk::ff {

template <std::size_t N>
struct bigint {
  static constexpr std::size_t num_limbs = N;
  static constexpr std::size_t num_bytes = 8 * N;

  uint64_t limb[N] = {};

  constexpr bool operator==(const bigint&) const = default;

  static constexpr bigint from_u64(uint64_t v) {
    bigint r;
    r.limb[0] = v;
    return r;
  }

  constexpr bool is_zero() const {
    for (std::size_t i = 0; i < N; ++i)
      if (limb[i] != 0) return false;
    return true;
  }
  constexpr bool is_odd() const { return (limb[0] & 1) != 0; }
  constexpr bool bit(std::size_t i) const { return (limb[i / 64] >> (i % 64)) & 1; }

  // Number of significant bits (0 for zero).
  constexpr std::size_t bit_length() const {
    for (std::size_t i = N; i-- > 0;) {
      if (limb[i] != 0) return 64 * i + (64 - static_cast<std::size_t>(__builtin_clzll(limb[i])));
    }
    return 0;
  }

  // -1, 0, 1 as *this <, ==, > o.
  constexpr int compare(const bigint& o) const {
    for (std::size_t i = N; i-- > 0;) {
      if (limb[i] < o.limb[i]) return -1;
      if (limb[i] > o.limb[i]) return 1;
    }
    return 0;
  }
  constexpr bool operator<(const bigint& o) const { return compare(o) < 0; }
  constexpr bool operator>=(const bigint& o) const { return compare(o) >= 0; }

  // *this += o; returns the carry out.
  constexpr uint64_t add_in_place(const bigint& o) {
    uint64_t carry = 0;
    for (std::size_t i = 0; i < N; ++i) {
      const unsigned __int128 s = static_cast<unsigned __int128>(limb[i]) + o.limb[i] + carry;
      limb[i] = static_cast<uint64_t>(s);
      carry = static_cast<uint64_t>(s >> 64);
    }
    return carry;
  }
  // *this -= o; returns the borrow out.
  constexpr uint64_t sub_in_place(const bigint& o) {
    uint64_t borrow = 0;
    for (std::size_t i = 0; i < N; ++i) {
      const unsigned __int128 d = static_cast<unsigned __int128>(limb[i]) - o.limb[i] - borrow;
      limb[i] = static_cast<uint64_t>(d);
      borrow = static_cast<uint64_t>(d >> 64) & 1;
    }
    return borrow;
  }
  constexpr void shr1() {
    for (std::size_t i = 0; i + 1 < N; ++i) limb[i] = (limb[i] >> 1) | (limb[i + 1] << 63);
    limb[N - 1] >>= 1;
  }
  // Returns the bit shifted out at the top.
  constexpr uint64_t shl1() {
    const uint64_t out = limb[N - 1] >> 63;
    for (std::size_t i = N - 1; i > 0; --i) limb[i] = (limb[i] << 1) | (limb[i - 1] >> 63);
    limb[0] <<= 1;
    return out;
  }
  // *this = *this * m + a; returns the limb that overflowed.
  constexpr uint64_t mul_add_small(uint64_t m, uint64_t a) {
    uint64_t carry = a;
    for (std::size_t i = 0; i < N; ++i) {
      const unsigned __int128 t = static_cast<unsigned __int128>(limb[i]) * m + carry;
      limb[i] = static_cast<uint64_t>(t);
      carry = static_cast<uint64_t>(t >> 64);
    }
    return carry;
  }
  // *this /= d; returns the remainder.
  constexpr uint64_t div_small(uint64_t d) {
    unsigned __int128 rem = 0;
    for (std::size_t i = N; i-- > 0;) {
      const unsigned __int128 cur = (rem << 64) | limb[i];
      limb[i] = static_cast<uint64_t>(cur / d);
      rem = cur % d;
    }
    return static_cast<uint64_t>(rem);
  }

  // Parses "0x..." hexadecimal or plain decimal. Returns nullopt on a bad digit, an empty string
  // or a value that does not fit in N limbs.
  static constexpr std::optional<bigint> parse(std::string_view s) {
    bigint r;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      s.remove_prefix(2);
      for (char c : s) {
        uint64_t d;
        if (c >= '0' && c <= '9') d = static_cast<uint64_t>(c - '0');
        else if (c >= 'a' && c <= 'f') d = static_cast<uint64_t>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') d = static_cast<uint64_t>(c - 'A' + 10);
        else return std::nullopt;
        if (r.mul_add_small(16, d) != 0) return std::nullopt;
      }
      return r;
    }
    if (s.empty()) return std::nullopt;
    for (char c : s) {
      if (c < '0' || c > '9') return std::nullopt;
      if (r.mul_add_small(10, static_cast<uint64_t>(c - '0')) != 0) return std::nullopt;
    }
    return r;
  }

  // For constants in headers: a bad literal is a compile error, not a runtime one.
  static consteval bigint literal(std::string_view s) {
    const auto r = parse(s);
    if (!r) throw "bigint::literal: malformed constant";  // compile-time diagnostic
    return *r;
  }

  std::string to_decimal() const {
    if (is_zero()) return "0";
    std::string out;
    bigint t = *this;
    while (!t.is_zero()) out.push_back(static_cast<char>('0' + t.div_small(10)));
    return {out.rbegin(), out.rend()};
  }

  // Big-endian hex with a 0x prefix and no leading zeros ("0x0" for zero).
  std::string to_hex() const {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    bool started = false;
    for (std::size_t i = N; i-- > 0;) {
      for (int nib = 15; nib >= 0; --nib) {
        const auto d = static_cast<unsigned>((limb[i] >> (4 * nib)) & 0xf);
        if (d != 0) started = true;
        if (started) out.push_back(digits[d]);
      }
    }
    return "0x" + (started ? out : std::string("0"));
  }

  // Little-endian bytes (the snarkjs/iden3 order).
  constexpr void to_bytes_le(uint8_t* out) const {
    for (std::size_t i = 0; i < 8 * N; ++i) out[i] = static_cast<uint8_t>(limb[i / 8] >> (8 * (i % 8)));
  }
  static constexpr bigint from_bytes_le(const uint8_t* in) {
    bigint r;
    for (std::size_t i = 0; i < 8 * N; ++i) r.limb[i / 8] |= static_cast<uint64_t>(in[i]) << (8 * (i % 8));
    return r;
  }
  // Big-endian bytes (the ZCash BLS12-381 order).
  constexpr void to_bytes_be(uint8_t* out) const {
    for (std::size_t i = 0; i < 8 * N; ++i) out[8 * N - 1 - i] = static_cast<uint8_t>(limb[i / 8] >> (8 * (i % 8)));
  }
  static constexpr bigint from_bytes_be(const uint8_t* in) {
    bigint r;
    for (std::size_t i = 0; i < 8 * N; ++i) r.limb[i / 8] |= static_cast<uint64_t>(in[8 * N - 1 - i]) << (8 * (i % 8));
    return r;
  }
};

}  // namespace cuzk::ff
