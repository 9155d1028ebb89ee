// SPDX-License-Identifier: MIT OR Apache-2.0
// circom's field functions: the functions of circom 2's wasm that its circuit code calls on field
// elements, by the name the wasm gives them, with what each reads and writes. Every one gets a
// stub in the compiled generator (generated_c.hpp), and the trace that makes a witness graph
// (graph_recorder.hpp) is told of every call by its code.
//
// The shapes, in the argument order of the wasm (each argument the address of an element, except
// the copy's count):
//   result_of_two  (r, a, b): r = f(a, b)
//   result_of_one  (r, a):    r = f(a)
//   in_place       (a):       a's representation changes, its value does not
//   test_of_one    (a):       an i32 of a's value, which the circuit's code branches or indexes on
//   test_of_two    (a, b):    an i32 of a's and b's values
//   copy_n         (r, a, n): n elements from a to r
#pragma once

#include <cstdint>
#include <string_view>

namespace cuzk::witness {

enum class field_shape : uint8_t { result_of_two, result_of_one, in_place, test_of_one, test_of_two, copy_n };

// The codes are part of the compiled generator's interface: a change raises generated_c_version.
enum class field_fn : uint8_t {
  copy = 1, copyn, is_true, to_montgomery, to_normal, to_long_normal, is_negative, get_lsb32, to_int, eq_r, gt_r,
  neg, inv, bnot, lnot,
  add, sub, mul, div, idiv, mod, pow, eq, neq, lt, gt, leq, geq, shl, shr, band, bor, bxor, land, lor,
};

struct field_function {
  std::string_view name;  // the wasm's, without "w2c_"
  field_fn code;
  field_shape shape;
};

inline constexpr field_function field_functions[] = {
    {"Fr_copy", field_fn::copy, field_shape::result_of_one},
    {"Fr_copyn", field_fn::copyn, field_shape::copy_n},
    {"Fr_isTrue", field_fn::is_true, field_shape::test_of_one},
    {"Fr_toMontgomery", field_fn::to_montgomery, field_shape::in_place},
    {"Fr_toNormal", field_fn::to_normal, field_shape::in_place},
    {"Fr_toLongNormal", field_fn::to_long_normal, field_shape::in_place},
    {"Fr_isNegative", field_fn::is_negative, field_shape::test_of_one},
    {"Fr_getLsb32", field_fn::get_lsb32, field_shape::test_of_one},
    {"Fr_toInt", field_fn::to_int, field_shape::test_of_one},
    {"Fr_eqR", field_fn::eq_r, field_shape::test_of_two},
    {"Fr_gtR", field_fn::gt_r, field_shape::test_of_two},
    {"Fr_neg", field_fn::neg, field_shape::result_of_one},
    {"Fr_inv", field_fn::inv, field_shape::result_of_one},
    {"Fr_bnot", field_fn::bnot, field_shape::result_of_one},
    {"Fr_lnot", field_fn::lnot, field_shape::result_of_one},
    {"Fr_add", field_fn::add, field_shape::result_of_two},
    {"Fr_sub", field_fn::sub, field_shape::result_of_two},
    {"Fr_mul", field_fn::mul, field_shape::result_of_two},
    {"Fr_div", field_fn::div, field_shape::result_of_two},
    {"Fr_idiv", field_fn::idiv, field_shape::result_of_two},
    {"Fr_mod", field_fn::mod, field_shape::result_of_two},
    {"Fr_pow", field_fn::pow, field_shape::result_of_two},
    {"Fr_eq", field_fn::eq, field_shape::result_of_two},
    {"Fr_neq", field_fn::neq, field_shape::result_of_two},
    {"Fr_lt", field_fn::lt, field_shape::result_of_two},
    {"Fr_gt", field_fn::gt, field_shape::result_of_two},
    {"Fr_leq", field_fn::leq, field_shape::result_of_two},
    {"Fr_geq", field_fn::geq, field_shape::result_of_two},
    {"Fr_shl", field_fn::shl, field_shape::result_of_two},
    {"Fr_shr", field_fn::shr, field_shape::result_of_two},
    {"Fr_band", field_fn::band, field_shape::result_of_two},
    {"Fr_bor", field_fn::bor, field_shape::result_of_two},
    {"Fr_bxor", field_fn::bxor, field_shape::result_of_two},
    {"Fr_land", field_fn::land, field_shape::result_of_two},
    {"Fr_lor", field_fn::lor, field_shape::result_of_two},
};

inline constexpr const field_function* field_function_of(field_fn code) {
  for (const field_function& f : field_functions)
    if (f.code == code) return &f;
  return nullptr;
}

// The codes of the two events the glue reports to a trace (circom_wasm_glue.c): an input value
// written to the shared memory before setInputSignal (x0, x1: the name's hash, x2: the index),
// and a wire's value there after getWitness (x0: the wire).
inline constexpr uint32_t trace_input_event = 100;
inline constexpr uint32_t trace_output_event = 101;

}  // namespace cuzk::witness
