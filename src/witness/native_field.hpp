// SPDX-License-Identifier: MIT OR Apache-2.0
// circom's field arithmetic, native: the functions a compiled witness generator calls in place of
// the wasm's own Fr_add, Fr_sub, Fr_mul, Fr_neg and Fr_toLongNormal (docs/witness.md, 'Native field arithmetic').
//
// circom's wasm keeps each field element in its linear memory as 8 bytes of header and the value's
// n64 64-bit limbs: a signed 32-bit "short" value at offset 0, a type word at offset 4 (bit 31: the
// limbs hold the value, "long"; bit 30: the limbs are in Montgomery form, R = 2^(64 n64)), the
// limbs from offset 8. Its own arithmetic works on 32-bit halves; these functions do the same
// computation with cuzk's field code (src/ff: 64-bit limbs, MULX where the machine has it) on the
// same memory, and give the same value in every case: two short operands give the wasm's short
// result (or the long value where it overflows 31 bits), anything else a long Montgomery result.
// The representation of a long result may differ from the wasm's (Montgomery where it would
// have written the plain value); every reader of an element, in the wasm and here, accepts both,
// so the witness is the same to the byte (checked against the wasm's own functions in
// native_field_test.cpp, and against snarkjs's witnesses in circom_wasm_test.cpp).
//
// The interface is C's: the compiled generator (circom_wasm_glue.c, which declares the same
// struct) calls through these pointers. Each function checks that every element it touches lies
// inside the memory and returns nonzero where one does not; the glue turns that into the wasm's
// out-of-bounds trap.
#pragma once

#include <cstdint>
#include <span>

namespace cuzk::witness {

extern "C" {
// The layout is repeated in circom_wasm_glue_abi.h (struct cuzk_native_field).
struct native_field_ops {
  uint32_t abi;  // native_field_abi
  uint32_t n64;  // limbs of the field this table computes in
  int (*add)(uint8_t* mem, uint64_t mem_size, uint32_t r, uint32_t a, uint32_t b);
  int (*sub)(uint8_t* mem, uint64_t mem_size, uint32_t r, uint32_t a, uint32_t b);
  int (*mul)(uint8_t* mem, uint64_t mem_size, uint32_t r, uint32_t a, uint32_t b);
  int (*neg)(uint8_t* mem, uint64_t mem_size, uint32_t r, uint32_t a);
  // In place: the element as a long plain value (what getWitness hands out, once per wire).
  int (*to_long_normal)(uint8_t* mem, uint64_t mem_size, uint32_t a);
};
}

inline constexpr uint32_t native_field_abi = 2;

// The table for the field of this prime (n32 little-endian 32-bit words, as the wasm's
// getRawPrime gives it), or nullptr where cuzk has no native field for it: circom's other primes
// (goldilocks, pallas, vesta, secq256r1, ...) keep the wasm's own arithmetic.
const native_field_ops* native_field_for(std::span<const uint32_t> prime);

}  // namespace cuzk::witness
