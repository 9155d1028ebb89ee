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

/* A trace of one calculation (src/witness/graph_recorder.hpp), which learns every outermost call of
 * circom's field functions (field_functions.hpp, their codes), and every load and store of the
 * circuit's code through the linear memory's `cuzk_trace` (the hooks below). */
struct cuzk_trace {
  /* One byte per 4 bytes of the linear memory (4 GiB of it): 0 where the bytes have not been
   * written since the trace began, CUZK_TRACE_STORED where the circuit's own code stored them, or
   * what the recorder wrote there (a part of an element whose value it follows, or 0 for a
   * constant: src/witness/element_marks.hpp). */
  uint8_t* state;
  /* Nonzero inside a traced call: its loads and stores are the field function's own. */
  uint32_t depth;
  /* Set by a load, outside any traced call, of bytes the recorder follows: the trace cannot
   * make a graph. `load_at` is the first such address. */
  uint32_t followed_load;
  uint64_t load_at;
  /* Phase 0 before the call runs, 1 after it with its result (0 for functions without one). */
  void (*call)(struct cuzk_trace* t, uint32_t code, uint32_t phase, uint32_t x0, uint32_t x1, uint32_t x2, uint32_t ret);
};

#define CUZK_TRACE_STORED 0xffu
/* The events of the glue (field_functions.hpp: trace_input_event, trace_output_event). */
#define CUZK_TRACE_INPUT_EVENT 100u
#define CUZK_TRACE_OUTPUT_EVENT 101u

static inline void cuzk_trace_store(void* trace, uint64_t addr, uint64_t n) {
  struct cuzk_trace* t = (struct cuzk_trace*)trace;
  if (n == 0) return;
  for (uint64_t g = addr >> 2, end = (addr + n - 1) >> 2; g <= end; ++g) t->state[g] = CUZK_TRACE_STORED;
}

static inline void cuzk_trace_load(void* trace, uint64_t addr, uint64_t n) {
  struct cuzk_trace* t = (struct cuzk_trace*)trace;
  if (t->depth || n == 0) return;
  for (uint64_t g = addr >> 2, end = (addr + n - 1) >> 2; g <= end; ++g) {
    const uint8_t o = t->state[g];
    if (o != 0 && o != CUZK_TRACE_STORED && !t->followed_load) {
      t->followed_load = 1;
      t->load_at = addr;
    }
  }
}

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
  /* The calculation's trace, or NULL (nearly always). */
  struct cuzk_trace* trace;
};

/* The error code the glue records for a calculation stopped from outside. */
#define CUZK_WITNESS_STOPPED 0xfffffffeu

/* Records the stop and unwinds out of the wasm (circom_wasm_glue.c). */
void cuzk_witness_stopped(struct cuzk_runtime_head* head) __attribute__((noreturn));

static inline int cuzk_stop_requested(const struct cuzk_runtime_head* head) {
  return head->stop && __atomic_load_n(head->stop, __ATOMIC_RELAXED);
}

#endif
