// SPDX-License-Identifier: MIT OR Apache-2.0
// circom's Fr_add, Fr_sub, Fr_mul, Fr_neg and Fr_toLongNormal on cuzk's field code; see native_field.hpp.
#include "witness/native_field.hpp"

#include <cstring>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "witness/circom_element.hpp"

namespace cuzk::witness {

namespace {

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


}  // namespace

const native_field_ops* native_field_for(std::span<const uint32_t> prime) {
  if (is_prime_of<bn254::fr>(prime)) return &ops<bn254::fr>::table;
  if (is_prime_of<bls12_381::fr>(prime)) return &ops<bls12_381::fr>::table;
  return nullptr;
}

}  // namespace cuzk::witness
