/* SPDX-License-Identifier: MIT OR Apache-2.0
 * What a compiled generator's two C files share: circom_wasm_glue.c, and the lines cuzk appends to
 * the C that wasm2c made (wasm_compiler.cpp, 'native_stubs'), which call the native field
 * arithmetic in place of the wasm's own and stop a calculation that was asked to stop.
 *
 * The runtime instance (the glue's struct Z_runtime_instance_t, which wasm2c hands every function
 * of the circuit as instance->Z_runtime_instance) starts with a cuzk_runtime_head, so that the
 * appended functions reach it without knowing the rest of the glue's struct.
 */
#ifndef CUZK_WITNESS_GLUE_ABI_H
#define CUZK_WITNESS_GLUE_ABI_H

#include <stdint.h>

/* The native field's functions: src/witness/native_field.hpp, struct native_field_ops, version 2.
 * Each returns nonzero where an element lies outside the memory. */
struct cuzk_native_field {
  uint32_t abi;
  uint32_t n64;
  int (*add)(uint8_t* mem, uint64_t mem_size, uint32_t r, uint32_t a, uint32_t b);
  int (*sub)(uint8_t* mem, uint64_t mem_size, uint32_t r, uint32_t a, uint32_t b);
  int (*mul)(uint8_t* mem, uint64_t mem_size, uint32_t r, uint32_t a, uint32_t b);
  int (*neg)(uint8_t* mem, uint64_t mem_size, uint32_t r, uint32_t a);
  int (*to_long_normal)(uint8_t* mem, uint64_t mem_size, uint32_t a);
};

struct cuzk_runtime_head {
  /* NULL: the wasm's own arithmetic (a prime cuzk has no native field for, or asked for). */
  const struct cuzk_native_field* native;
  /* Nonzero once the calculation must stop (its time limit, a cancel); read without a lock,
   * written by another thread through __atomic builtins. NULL: never. */
  const int* stop;
  /* The circuit's call depth: each instance counts its own (the appended FUNC_PROLOGUE), so that
   * recursion without end traps in the calculation that recursed, whatever runs beside it. */
  uint32_t depth;
  /* The instance's Z_circuit_instance_t, for the test hooks appended to the circuit's C. */
  void* circuit;
};

/* The error code the glue records for a calculation stopped from outside. */
#define CUZK_WITNESS_STOPPED 0xfffffffeu

/* Records the stop and unwinds out of the wasm (circom_wasm_glue.c). */
void cuzk_witness_stopped(struct cuzk_runtime_head* head) __attribute__((noreturn));

static inline int cuzk_stop_requested(const struct cuzk_runtime_head* head) {
  return head->stop && __atomic_load_n(head->stop, __ATOMIC_RELAXED);
}

#endif
