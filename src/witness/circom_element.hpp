// SPDX-License-Identifier: MIT OR Apache-2.0
// One field element in circom's wasm memory, for code that reads and writes them in place (the
// native field, native_field.hpp; the trace of a witness graph, graph_recorder.hpp): 8 bytes of
// header and the value's limbs. The header is a signed 32-bit "short" value at offset 0 and a type
// word at offset 4 (bit 31: the limbs hold the value, "long"; bit 30: the limbs are in Montgomery
// form, R = 2^(64 n64)); the limbs start at offset 8.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

namespace cuzk::witness {

inline constexpr uint32_t long_bit = 0x80000000u;
inline constexpr uint32_t montgomery_bit = 0x40000000u;

// One element of circom's wasm memory in the field F: header, then F's limbs.
template <class F>
struct element {
  using repr = typename F::repr;
  static constexpr uint64_t size = 8 + F::num_bytes;

  static bool inside(uint64_t mem_size, uint32_t at) { return uint64_t{at} + size <= mem_size; }

  static F from_int64(int64_t v) {
    // |v| < 2^63 for every caller: an i32, or the product or sum of two.
    return v >= 0 ? F::from_uint(static_cast<uint64_t>(v)) : -F::from_uint(static_cast<uint64_t>(-v));
  }

  static int32_t short_value(const uint8_t* e) {
    int32_t v;
    std::memcpy(&v, e, 4);
    return v;
  }
  static uint32_t type(const uint8_t* e) {
    uint32_t t;
    std::memcpy(&t, e + 4, 4);
    return t;
  }

  // The element's value, whatever its form. Limbs at or above p (which circom's own code never
  // writes) are reduced, so that no input can make the Montgomery arithmetic leave its range.
  static F load(const uint8_t* e) {
    const uint32_t t = type(e);
    if (!(t & long_bit)) return from_int64(short_value(e));
    repr limbs;
    std::memcpy(limbs.limb, e + 8, F::num_bytes);
    while (limbs >= F::modulus) limbs = subtract(limbs, F::modulus);
    return (t & montgomery_bit) ? F::from_montgomery(limbs) : F::from_canonical_unchecked(limbs);
  }

  static repr subtract(const repr& a, const repr& b) {
    repr r;
    unsigned __int128 borrow = 0;
    for (std::size_t i = 0; i < repr::num_limbs; ++i) {
      const unsigned __int128 d = static_cast<unsigned __int128>(a.limb[i]) - b.limb[i] - borrow;
      r.limb[i] = static_cast<uint64_t>(d);
      borrow = (d >> 64) & 1;
    }
    return r;
  }

  static void store_long(uint8_t* e, const F& v) {
    const uint32_t t = long_bit | montgomery_bit;
    std::memcpy(e + 4, &t, 4);
    std::memcpy(e + 8, v.montgomery().limb, F::num_bytes);
  }

  // The result of an operation on two short values, as the wasm writes it: short where it fits
  // 31 bits and a sign, the field element of the 64-bit result otherwise.
  static void store_int64(uint8_t* e, int64_t r) {
    const int64_t overflow = r >> 31;
    if (overflow == 0 || overflow == -1) {
      const int32_t v = static_cast<int32_t>(r);
      const uint32_t t = 0;
      std::memcpy(e, &v, 4);
      std::memcpy(e + 4, &t, 4);
    } else {
      store_long(e, from_int64(r));
    }
  }

  static bool both_short(const uint8_t* a, const uint8_t* b) { return !((type(a) | type(b)) & long_bit); }
};

// True when circom's prime (n32 little-endian 32-bit words, as the wasm's getRawPrime gives it)
// is F's modulus.
template <class F>
bool is_prime_of(std::span<const uint32_t> prime) {
  if (prime.size() != 2 * F::N) return false;
  for (std::size_t i = 0; i < F::N; ++i)
    if ((uint64_t{prime[2 * i]} | (uint64_t{prime[2 * i + 1]} << 32)) != F::modulus.limb[i]) return false;
  return true;
}

}  // namespace cuzk::witness
