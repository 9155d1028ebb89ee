// SPDX-License-Identifier: MIT OR Apache-2.0
// circom's Fr_add, Fr_sub, Fr_mul, Fr_neg and Fr_toLongNormal on cuzk's field code; see native_field.hpp.
#include "witness/native_field.hpp"

#include <cstring>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"

namespace cuzk::witness {

namespace {

constexpr uint32_t long_bit = 0x80000000u;
constexpr uint32_t montgomery_bit = 0x40000000u;

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

template <class F>
struct ops {
  using E = element<F>;

  static int add(uint8_t* m, uint64_t size, uint32_t r, uint32_t a, uint32_t b) {
    if (!E::inside(size, r) || !E::inside(size, a) || !E::inside(size, b)) return 1;
    if (E::both_short(m + a, m + b)) {
      E::store_int64(m + r, int64_t{E::short_value(m + a)} + E::short_value(m + b));
    } else {
      E::store_long(m + r, E::load(m + a) + E::load(m + b));
    }
    return 0;
  }

  static int sub(uint8_t* m, uint64_t size, uint32_t r, uint32_t a, uint32_t b) {
    if (!E::inside(size, r) || !E::inside(size, a) || !E::inside(size, b)) return 1;
    if (E::both_short(m + a, m + b)) {
      E::store_int64(m + r, int64_t{E::short_value(m + a)} - E::short_value(m + b));
    } else {
      E::store_long(m + r, E::load(m + a) - E::load(m + b));
    }
    return 0;
  }

  static int mul(uint8_t* m, uint64_t size, uint32_t r, uint32_t a, uint32_t b) {
    if (!E::inside(size, r) || !E::inside(size, a) || !E::inside(size, b)) return 1;
    if (E::both_short(m + a, m + b)) {
      E::store_int64(m + r, int64_t{E::short_value(m + a)} * E::short_value(m + b));
    } else {
      E::store_long(m + r, E::load(m + a) * E::load(m + b));
    }
    return 0;
  }

  static int neg(uint8_t* m, uint64_t size, uint32_t r, uint32_t a) {
    if (!E::inside(size, r) || !E::inside(size, a)) return 1;
    if (!(E::type(m + a) & long_bit)) {
      E::store_int64(m + r, -int64_t{E::short_value(m + a)});
    } else {
      E::store_long(m + r, -E::load(m + a));
    }
    return 0;
  }

  // The wasm's Fr_toLongNormal: type "long", limbs the plain value (a short one's field element).
  static int to_long_normal(uint8_t* m, uint64_t size, uint32_t a) {
    if (!E::inside(size, a)) return 1;
    const uint32_t t = E::type(m + a);
    if ((t & long_bit) && !(t & montgomery_bit)) return 0;  // already so
    const typename F::repr plain = E::load(m + a).to_canonical();
    const uint32_t type = long_bit;
    std::memcpy(m + a + 4, &type, 4);
    std::memcpy(m + a + 8, plain.limb, F::num_bytes);
    return 0;
  }

  static constexpr native_field_ops table{native_field_abi, static_cast<uint32_t>(F::N), add, sub, mul, neg,
                                          to_long_normal};
};

// True when the wasm's prime (n32 little-endian words) is F's modulus.
template <class F>
bool is_prime_of(std::span<const uint32_t> prime) {
  if (prime.size() != 2 * F::N) return false;
  for (std::size_t i = 0; i < F::N; ++i) {
    const uint64_t limb = uint64_t{prime[2 * i]} | (uint64_t{prime[2 * i + 1]} << 32);
    if (limb != F::modulus.limb[i]) return false;
  }
  return true;
}

}  // namespace

const native_field_ops* native_field_for(std::span<const uint32_t> prime) {
  if (is_prime_of<bn254::fr>(prime)) return &ops<bn254::fr>::table;
  if (is_prime_of<bls12_381::fr>(prime)) return &ops<bls12_381::fr>::table;
  return nullptr;
}

}  // namespace cuzk::witness
