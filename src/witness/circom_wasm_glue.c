/* SPDX-License-Identifier: MIT OR Apache-2.0
 * The C side of a compiled circom witness generator. cuzk writes this file next to the C that
 * wasm2c makes from a circuit's .wasm (module name "circuit") and compiles the two, with wabt's
 * runtime, into one shared object (src/witness/wasm_compiler.cpp); circom_wasm.cpp then loads it
 * with dlopen and calls only the cuzk_witness_* functions below.
 *
 * Why a C layer at all: the wasm's imports (runtime.exceptionHandler and the message functions)
 * must be C functions linked into the object, and a trap unwinds with longjmp, which must not
 * cross C++ frames. So every call into the wasm starts here under wasm_rt_impl_try(), the
 * imports only record what happened, and an error comes back to C++ as a return value with the
 * text circom's witness_calculator.js would have thrown: the error code's sentence, then what
 * the wasm wrote through printErrorMessage (the template and line of a failed assert).
 *
 * Every instance has its own linear memory, and wabt's runtime, as cuzk compiles it, keeps its
 * unwind target per thread and the call depth per instance (generated_c.hpp): calculations
 * on several threads run at once, each instance used by one thread at a time.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "circom_wasm_glue_abi.h"
#include "circuit.h"
#include "wasm-rt-impl.h"

#define CUZK_EXPORT __attribute__((visibility("default")))

/* The glue's interface version: circom_wasm.cpp refuses an object built from another one. */
#define CUZK_WITNESS_GLUE_VERSION 8

/* A growable text buffer, always NUL-terminated. */
typedef struct {
  char* text;
  size_t len, cap;
} text_buffer;

static void text_append(text_buffer* b, const char* s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->len + n + 1) cap *= 2;
    char* grown = realloc(b->text, cap);
    if (!grown) return; /* out of memory: the message is cut, the calculation still ends */
    b->text = grown;
    b->cap = cap;
  }
  memcpy(b->text + b->len, s, n);
  b->len += n;
  b->text[b->len] = '\0';
}

static void text_clear(text_buffer* b) {
  b->len = 0;
  if (b->text) b->text[0] = '\0';
}

/* One instance of the circuit: its wasm state and what its imports recorded. wasm2c passes it to
 * every import as the "runtime" module's instance. */
struct Z_runtime_instance_t {
  struct cuzk_runtime_head head; /* first: the appended stubs read it (circom_wasm_glue_abi.h) */
  Z_circuit_instance_t wasm;
  int instantiated;
  uint32_t error_code; /* the code given to exceptionHandler; 0 when none */
  text_buffer error;   /* the text of the last failure */
  text_buffer pending; /* printErrorMessage's lines, before exceptionHandler */
  text_buffer log;     /* the circuit's log() output, whole lines */
  text_buffer line;    /* the log line being built */
};
typedef struct Z_runtime_instance_t cuzk_witness;

/* circom's getMessage(): the characters the wasm hands out one by one, up to a 0. */
static void read_message(cuzk_witness* w, text_buffer* into) {
  for (;;) {
    uint32_t c = Z_circuitZ_getMessageChar(&w->wasm);
    if (c == 0) return;
    char ch = (char)c;
    text_append(into, &ch, 1);
  }
}

/* The sentences of circom's witness_calculator.js, by error code. */
static const char* error_sentence(uint32_t code) {
  switch (code) {
    case 1: return "Signal not found.";
    case 2: return "Too many signals set.";
    case 3: return "Signal already set.";
    case 4: return "Assert Failed.";
    case 5: return "Not enough memory.";
    case 6: return "Input signal array access exceeds the size.";
    case 7: return "Out of bounds array access.";
    default: return "Unknown error.";
  }
}

void Z_runtimeZ_exceptionHandler(struct Z_runtime_instance_t* w, u32 code) {
  w->error_code = code ? code : 0xffffffffu;
  text_clear(&w->error);
  const char* s = error_sentence(code);
  text_append(&w->error, s, strlen(s));
  text_append(&w->error, "\n", 1);
  text_append(&w->error, w->pending.text ? w->pending.text : "", w->pending.len);
  /* JavaScript throws here, so the wasm never runs on after the handler: neither does it here. */
  wasm_rt_trap(WASM_RT_TRAP_UNREACHABLE);
}

void Z_runtimeZ_printErrorMessage(struct Z_runtime_instance_t* w) {
  read_message(w, &w->pending);
  text_append(&w->pending, "\n", 1);
}

/* log(): items separated by a space, a line ended by a message that is "\n" alone. */
void Z_runtimeZ_writeBufferMessage(struct Z_runtime_instance_t* w) {
  text_buffer msg = {0};
  read_message(w, &msg);
  if (msg.len == 1 && msg.text[0] == '\n') {
    text_append(&w->log, w->line.text ? w->line.text : "", w->line.len);
    text_append(&w->log, "\n", 1);
    text_clear(&w->line);
  } else {
    if (w->line.len) text_append(&w->line, " ", 1);
    text_append(&w->line, msg.text ? msg.text : "", msg.len);
  }
  free(msg.text);
}

/* A field element logged by the circuit: the shared memory's words, most significant last, in
 * decimal. */
void Z_runtimeZ_showSharedRWMemory(struct Z_runtime_instance_t* w) {
  uint32_t n32 = Z_circuitZ_getFieldNumLen32(&w->wasm);
  uint32_t words[64];
  if (n32 > 64) n32 = 64;
  for (uint32_t j = 0; j < n32; ++j) words[j] = Z_circuitZ_readSharedRWMemory(&w->wasm, j);
  char digits[700];
  size_t nd = 0;
  /* Repeated division by 10 of the little-endian words. */
  for (;;) {
    int zero = 1;
    uint64_t rem = 0;
    for (uint32_t j = n32; j-- > 0;) {
      uint64_t cur = (rem << 32) | words[j];
      words[j] = (uint32_t)(cur / 10);
      rem = cur % 10;
      if (words[j]) zero = 0;
    }
    digits[nd++] = (char)('0' + rem);
    if (zero || nd == sizeof digits) break;
  }
  if (w->line.len) text_append(&w->line, " ", 1);
  for (size_t i = nd; i-- > 0;) text_append(&w->line, &digits[i], 1);
}

void cuzk_witness_stopped(struct cuzk_runtime_head* head) {
  cuzk_witness* w = (cuzk_witness*)head;
  w->error_code = CUZK_WITNESS_STOPPED;
  text_clear(&w->error);
  static const char s[] = "the calculation was stopped";
  text_append(&w->error, s, sizeof s - 1);
  wasm_rt_trap(WASM_RT_TRAP_UNREACHABLE);
}

/* A trap that no import explained: wabt's name for it. */
static int trapped(cuzk_witness* w, wasm_rt_trap_t trap) {
  if (w->error_code == 0) {
    text_clear(&w->error);
    const char* s = wasm_rt_strerror(trap);
    text_append(&w->error, "the witness code trapped: ", 26);
    text_append(&w->error, s, strlen(s));
    w->error_code = 0xffffffffu;
  }
  return -1;
}

/* Runs `call` inside the wasm runtime's trap handler; returns 0, or -1 with the error recorded. */
#define GUARDED(w, ...)                                        \
  do {                                                          \
    (w)->error_code = 0;                                        \
    (w)->head.depth = 0;                                        \
    if ((w)->head.trace) (w)->head.trace->depth = 0;            \
    text_clear(&(w)->pending);                                  \
    wasm_rt_trap_t trap_ = (wasm_rt_trap_t)wasm_rt_impl_try();  \
    if (trap_ != WASM_RT_TRAP_NONE) return trapped((w), trap_); \
    __VA_ARGS__;                                                \
  } while (0)

CUZK_EXPORT int cuzk_witness_glue_version(void) { return CUZK_WITNESS_GLUE_VERSION; }

static pthread_once_t g_module_once = PTHREAD_ONCE_INIT;

static void init_module(void) {
  wasm_rt_init();
  Z_circuit_init_module();
}

CUZK_EXPORT cuzk_witness* cuzk_witness_new(void) {
  cuzk_witness* w = calloc(1, sizeof *w);
  if (!w) return NULL;
  pthread_once(&g_module_once, init_module);
  w->head.circuit = &w->wasm;
  return w;
}

/* The native field to compute with (NULL: the wasm's own arithmetic) and the flag that stops the
 * calculation once nonzero (NULL: none). Before instantiate. */
CUZK_EXPORT void cuzk_witness_configure(cuzk_witness* w, const struct cuzk_native_field* native, const int* stop) {
  w->head.native = native;
  w->head.stop = stop;
}

/* Instantiates the module (allocating its memory and running its start function, which may trap). */
CUZK_EXPORT int cuzk_witness_instantiate(cuzk_witness* w) {
  GUARDED(w, Z_circuit_instantiate(&w->wasm, w));
  w->instantiated = 1;
  return 0;
}

/* Asks `grow(context, pages)` before the linear memory grows to `pages`: where it answers 0 the
 * grow fails as it would at the module's maximum, and circom's code reports "Not enough memory."
 * (error 5). After instantiate. So that growth beyond what a calculation's memory counted is
 * charged as it happens (calculation_memory.hpp). */
CUZK_EXPORT void cuzk_witness_memory_growth(cuzk_witness* w, int (*grow)(void*, uint32_t), void* context) {
  w->wasm.w2c_memory.cuzk_grow = grow;
  w->wasm.w2c_memory.cuzk_grow_context = context;
}

CUZK_EXPORT void cuzk_witness_delete(cuzk_witness* w) {
  if (!w) return;
  if (w->instantiated) Z_circuit_free(&w->wasm);
  free(w->error.text);
  free(w->pending.text);
  free(w->log.text);
  free(w->line.text);
  free(w);
}

CUZK_EXPORT const char* cuzk_witness_error(const cuzk_witness* w) { return w->error.text ? w->error.text : ""; }
CUZK_EXPORT uint32_t cuzk_witness_error_code(const cuzk_witness* w) { return w->error_code; }

/* The log() lines so far; cleared by the call. */
CUZK_EXPORT size_t cuzk_witness_take_log(cuzk_witness* w, char* out, size_t cap) {
  size_t n = w->log.len < cap ? w->log.len : cap;
  if (n) memcpy(out, w->log.text, n);
  size_t total = w->log.len;
  if (n == total) text_clear(&w->log);
  return total;
}

CUZK_EXPORT int cuzk_witness_version(cuzk_witness* w, uint32_t* major, uint32_t* minor, uint32_t* patch) {
  GUARDED(w, (*major = Z_circuitZ_getVersion(&w->wasm), *minor = Z_circuitZ_getMinorVersion(&w->wasm),
              *patch = Z_circuitZ_getPatchVersion(&w->wasm)));
  return 0;
}

/* The field: n32 32-bit words, and the prime as n32 little-endian words (at most `cap`). */
CUZK_EXPORT int cuzk_witness_field(cuzk_witness* w, uint32_t* n32, uint32_t* prime, uint32_t cap) {
  GUARDED(w, *n32 = Z_circuitZ_getFieldNumLen32(&w->wasm));
  if (*n32 > cap) return 0;
  GUARDED(w, Z_circuitZ_getRawPrime(&w->wasm));
  for (uint32_t j = 0; j < *n32; ++j) GUARDED(w, prime[j] = Z_circuitZ_readSharedRWMemory(&w->wasm, j));
  return 0;
}

CUZK_EXPORT int cuzk_witness_sizes(cuzk_witness* w, uint32_t* witness_size, uint32_t* input_size) {
  GUARDED(w, (*witness_size = Z_circuitZ_getWitnessSize(&w->wasm), *input_size = Z_circuitZ_getInputSize(&w->wasm)));
  return 0;
}

CUZK_EXPORT int cuzk_witness_init(cuzk_witness* w, int sanity_check) {
  GUARDED(w, Z_circuitZ_init(&w->wasm, sanity_check ? 1u : 0u));
  return 0;
}

/* getInputSignalSize: the number of values of the input whose name hashes to (msb, lsb); negative
 * when the circuit has no such input. */
CUZK_EXPORT int cuzk_witness_input_size(cuzk_witness* w, uint32_t msb, uint32_t lsb, int32_t* size) {
  GUARDED(w, *size = (int32_t)Z_circuitZ_getInputSignalSize(&w->wasm, msb, lsb));
  return 0;
}

/* One value of an input: n32 little-endian words (reduced below the prime), then setInputSignal. */
CUZK_EXPORT int cuzk_witness_set_input(cuzk_witness* w, uint32_t msb, uint32_t lsb, uint32_t index,
                                       const uint32_t* words, uint32_t n32) {
  GUARDED(w, {
    for (uint32_t j = 0; j < n32; ++j) Z_circuitZ_writeSharedRWMemory(&w->wasm, j, words[j]);
    if (w->head.trace) w->head.trace->call(w->head.trace, CUZK_TRACE_INPUT_EVENT, 0, msb, lsb, index, 0);
    Z_circuitZ_setInputSignal(&w->wasm, msb, lsb, index);
  });
  return 0;
}

/* The witness, wire by wire: `count` values from wire `first`, n32 little-endian words each, into
 * `out`. */
CUZK_EXPORT int cuzk_witness_values(cuzk_witness* w, uint32_t first, uint32_t* out, uint32_t count, uint32_t n32) {
  GUARDED(w, {
    for (uint32_t i = 0; i < count; ++i) {
      Z_circuitZ_getWitness(&w->wasm, first + i);
      if (w->head.trace) w->head.trace->call(w->head.trace, CUZK_TRACE_OUTPUT_EVENT, 1, first + i, 0, 0, 0);
      for (uint32_t j = 0; j < n32; ++j) out[(size_t)i * n32 + j] = Z_circuitZ_readSharedRWMemory(&w->wasm, j);
    }
  });
  return 0;
}

/* Follows the calculation with `trace` (NULL: no longer). After init. */
CUZK_EXPORT void cuzk_witness_trace(cuzk_witness* w, struct cuzk_trace* trace) {
  w->head.trace = trace;
  w->wasm.w2c_memory.cuzk_trace = trace;
}

/* The address of the element whose limbs are the shared memory (an input's value before
 * setInputSignal, a wire's after getWitness). */
CUZK_EXPORT int cuzk_witness_shared_element(cuzk_witness* w, uint32_t* at) {
  GUARDED(w, *at = Z_circuitZ_getSharedRWMemoryStart(&w->wasm) - 8);
  return 0;
}

/* A page of memory no code of the circuit uses: the linear memory grown by one page, its start in
 * `at`. For the field functions a witness graph calls on the wasm (witness_graph.hpp). */
CUZK_EXPORT int cuzk_witness_scratch(cuzk_witness* w, uint32_t* at) {
  uint64_t pages = wasm_rt_grow_memory(&w->wasm.w2c_memory, 1);
  if (pages == (uint32_t)-1) return -1;
  *at = (uint32_t)(pages * 65536u);
  return 0;
}

/* For tests: the instance's linear memory (circom_wasm_test.cpp writes field elements into it and
 * calls the test hook that generated_c.cpp appends to the circuit's C). */
CUZK_EXPORT uint8_t* cuzk_witness_test_memory(cuzk_witness* w, uint64_t* size) {
  *size = w->wasm.w2c_memory.size;
  return w->wasm.w2c_memory.data;
}
