// SPDX-License-Identifier: MIT OR Apache-2.0
// The changes to wasm2c's C and wabt's runtime; see generated_c.hpp.
#include "witness/generated_c.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "formats/file_io.hpp"
#include "witness/field_functions.hpp"

namespace cuzk::witness {

namespace {

// The stub's parameters, arguments and return type of each shape (field_functions.hpp).
struct shape_text {
  const char* returns;
  int arguments;
  const char* params;
  const char* args;
  const char* trace_args;  // x0, x1, x2 for the trace
};
constexpr shape_text text_of(field_shape s) {
  switch (s) {
    case field_shape::result_of_two: return {"void", 3, "u32 r, u32 a, u32 b", "r, a, b", "r, a, b"};
    case field_shape::result_of_one: return {"void", 2, "u32 r, u32 a", "r, a", "r, a, 0"};
    case field_shape::in_place: return {"void", 1, "u32 a", "a", "a, 0, 0"};
    case field_shape::test_of_one: return {"u32", 1, "u32 a", "a", "a, 0, 0"};
    case field_shape::test_of_two: return {"u32", 2, "u32 a, u32 b", "a, b", "a, b, 0"};
    case field_shape::copy_n: return {"void", 3, "u32 r, u32 a, u32 n", "r, a, n", "r, a, n"};
  }
  return {"void", 0, "", "", ""};
}

// What a function computes with where the calculation has a native field: its native_field_ops
// member, "copy" for the fixed-size copy, or nothing (the wasm's own code).
const char* native_of(field_fn code) {
  switch (code) {
    case field_fn::add: return "add";
    case field_fn::sub: return "sub";
    case field_fn::mul: return "mul";
    case field_fn::neg: return "neg";
    case field_fn::to_long_normal: return "to_long_normal";
    case field_fn::copy: return "copy";
    default: return nullptr;
  }
}

// The stub of each function: see generated_c.hpp. `head` is the runtime's cuzk_runtime_head.
// The body runs the native field where there is one and the wasm's own code otherwise; the stub
// around it reads the stop flag and tells a trace of every outermost call, before and after.
std::string stub_of(const field_function& f) {
  const std::string n(f.name);
  const shape_text t = text_of(f.shape);
  const bool returns = std::strcmp(t.returns, "void") != 0;
  std::ostringstream s;
  s << "static inline " << t.returns << " w2c_" << n << "_body(Z_circuit_instance_t* instance, " << t.params << ") {\n"
    << "  struct cuzk_runtime_head* head = CUZK_HEAD(instance);\n"
    << "  (void)head;\n";
  const char* native = native_of(f.code);
  if (native && std::strcmp(native, "copy") == 0) {
    // An element is the header's 8 bytes and the value's limbs.
    // Four limbs (both native fields) as one fixed-size copy the compiler inlines: circom copies
    // every constant of an array it indexes, element by element, so this is the hottest stub.
    s << "  if (head->native) {\n"
      << "    const uint64_t n = 8 + 8 * (uint64_t)head->native->n64, size = instance->w2c_memory.size;\n"
      << "    if ((uint64_t)r + n > size || (uint64_t)a + n > size) wasm_rt_trap(WASM_RT_TRAP_OOB);\n"
      << "    uint8_t* m = instance->w2c_memory.data;\n"
      << "    if (n == 40) {\n"
      << "      uint8_t t[40];\n"
      << "      memcpy(t, m + a, 40);\n"
      << "      memcpy(m + r, t, 40);\n"
      << "    } else {\n"
      << "      memmove(m + r, m + a, n);\n"
      << "    }\n"
      << "    return;\n"
      << "  }\n";
  } else if (native) {
    s << "  if (head->native) {\n"
      << "    if (head->native->" << native << "(instance->w2c_memory.data, instance->w2c_memory.size, " << t.args
      << ")) wasm_rt_trap(WASM_RT_TRAP_OOB);\n"
      << "    return;\n"
      << "  }\n";
  }
  s << "  " << (returns ? "return " : "") << "w2c_" << n << "_wasm(instance, " << t.args << ");\n"
    << "}\n\n";
  s << "static " << t.returns << " w2c_" << n << "(Z_circuit_instance_t* instance, " << t.params << ") {\n"
    << "  struct cuzk_runtime_head* head = CUZK_HEAD(instance);\n"
    << "  if (cuzk_stop_requested(head)) cuzk_witness_stopped(head);\n"
    << "  struct cuzk_trace* trace = head->trace;\n"
    << "  if (__builtin_expect(trace != NULL && trace->depth == 0, 0)) {\n"
    << "    trace->depth = 1;\n"
    << "    trace->call(trace, " << static_cast<int>(f.code) << "u, 0u, " << t.trace_args << ", 0u);\n"
    << "    " << (returns ? "u32 ret = " : "") << "w2c_" << n << "_body(instance, " << t.args << ");\n"
    << "    trace->call(trace, " << static_cast<int>(f.code) << "u, 1u, " << t.trace_args << ", " << (returns ? "ret" : "0u")
    << ");\n"
    << "    trace->depth = 0;\n"
    << "    " << (returns ? "return ret;\n" : "return;\n")
    << "  }\n"
    << "  " << (returns ? "return " : "") << "w2c_" << n << "_body(instance, " << t.args << ");\n"
    << "}\n\n";
  return s.str();
}

// The functions the native field's test reaches, by the number it passes (native_field_test.cpp).
constexpr std::string_view test_hook_functions[] = {"Fr_add", "Fr_sub", "Fr_mul", "Fr_neg", "Fr_copy", "Fr_isTrue", "Fr_toLongNormal"};

// The test hooks: one function of the wasm's own (own != 0) or its stub, on the instance's memory;
// and the wasm's own Fr_toLongNormal, which a test reads values through. -1 for a trap, -2 for a
// function the wasm does not have. Then the call the witness graph makes for a function it has
// no native code for (witness_graph.hpp): by its code, on the instance's memory.
std::string test_hooks(const std::vector<const field_function*>& done) {
  const auto stubbed = [&](std::string_view name) {
    return std::any_of(done.begin(), done.end(), [&](const field_function* d) { return d->name == name; });
  };
  std::ostringstream s;
  s << "__attribute__((visibility(\"default\"))) int cuzk_witness_test_field_op(struct cuzk_runtime_head* head, "
       "uint32_t op, int own, uint32_t r, uint32_t a, uint32_t b, uint32_t* result) {\n"
    << "  Z_circuit_instance_t* instance = (Z_circuit_instance_t*)head->circuit;\n"
    << "  head->depth = 0;\n"
    << "  if (wasm_rt_impl_try() != 0) return -1;\n"
    << "  (void)a; (void)b; (void)r; *result = 0;\n"
    << "  switch (op) {\n";
  for (std::size_t i = 0; i < std::size(test_hook_functions); ++i) {
    const std::string_view name = test_hook_functions[i];
    if (!stubbed(name)) continue;
    const field_function* f = nullptr;
    for (const field_function& g : field_functions)
      if (g.name == name) f = &g;
    const shape_text t = text_of(f->shape);
    const std::string n(name);
    const std::string call = "(instance, " + std::string(t.args) + ")";
    const std::string store = std::strcmp(t.returns, "void") == 0 ? "" : "*result = ";
    s << "    case " << i << ": if (own) " << store << "w2c_" << n << "_wasm" << call << "; else " << store << "w2c_" << n << call
      << "; return 0;\n";
  }
  s << "    case 100: w2c_Fr_toLongNormal" << (stubbed("Fr_toLongNormal") ? "_wasm" : "") << "(instance, a); return 0;\n"
    << "    default: return -2;\n"
    << "  }\n"
    << "}\n\n";
  s << "__attribute__((visibility(\"default\"))) int cuzk_witness_field_call(struct cuzk_runtime_head* head, "
       "uint32_t code, uint32_t r, uint32_t a, uint32_t b, uint32_t* result) {\n"
    << "  Z_circuit_instance_t* instance = (Z_circuit_instance_t*)head->circuit;\n"
    << "  head->depth = 0;\n"
    << "  if (wasm_rt_impl_try() != 0) return -1;\n"
    << "  (void)a; (void)b; (void)r; *result = 0;\n"
    << "  switch (code) {\n";
  for (const field_function* f : done) {
    if (f->shape == field_shape::copy_n) continue;  // no value of its own
    const shape_text t = text_of(f->shape);
    const std::string call = "w2c_" + std::string(f->name) + "(instance, " + t.args + ")";
    if (std::strcmp(t.returns, "void") == 0) {
      s << "    case " << static_cast<int>(f->code) << ": " << call << "; return 0;\n";
    } else {
      s << "    case " << static_cast<int>(f->code) << ": *result = " << call << "; return 0;\n";
    }
  }
  s << "    default: return -2;\n"
    << "  }\n"
    << "}\n";
  return s.str();
}

// True where a trace sees all that the circuit's code does with field elements: every function
// of circom's field code that a function outside it calls (the circuit's templates, the exports)
// is stubbed, or returns nothing (it can then only store, which the memory hooks see). A value
// returned from a function the trace does not see could steer the circuit's code unguarded.
bool traceable(const std::string& c, const std::vector<const field_function*>& done) {
  const auto stubbed = [&](std::string_view name) {
    return std::any_of(done.begin(), done.end(), [&](const field_function* d) { return d->name == name; });
  };
  bool outside = false;  // inside a function that is not one of circom's Fr_ functions
  std::size_t pos = 0;
  while (pos < c.size()) {
    std::size_t eol = c.find('\n', pos);
    if (eol == std::string::npos) eol = c.size();
    const std::string_view line(c.data() + pos, eol - pos);
    if (line.starts_with("static ") && line.ends_with(") {")) {
      const auto name_at = line.find(" w2c_");
      outside = name_at != std::string_view::npos && line.substr(name_at + 5, 3) != "Fr_";
    } else if (outside) {
      for (std::size_t at = line.find("w2c_Fr_"); at != std::string_view::npos; at = line.find("w2c_Fr_", at + 1)) {
        const std::size_t end = line.find('(', at);
        if (end == std::string_view::npos) continue;
        const std::string_view name = line.substr(at + 4, end - at - 4);
        if (stubbed(name)) continue;
        if (c.find("\nstatic void w2c_" + std::string(name) + "(") != std::string::npos) continue;
        return false;
      }
    }
    pos = eol + 1;
  }
  return true;
}

// wasm2c 1.0.32's call-depth macros, replaced by the instance's own count.
constexpr const char* depth_macros =
    "#define FUNC_PROLOGUE                                            \\\n"
    "  if (++wasm_rt_call_stack_depth > WASM_RT_MAX_CALL_STACK_DEPTH) \\\n"
    "    TRAP(EXHAUSTION);\n"
    "\n"
    "#define FUNC_EPILOGUE --wasm_rt_call_stack_depth\n";
constexpr const char* instance_depth_macros =
    "#define FUNC_PROLOGUE                                                      \\\n"
    "  if (++CUZK_HEAD(instance)->depth > WASM_RT_MAX_CALL_STACK_DEPTH) \\\n"
    "    TRAP(EXHAUSTION);\n"
    "\n"
    "#define FUNC_EPILOGUE --CUZK_HEAD(instance)->depth\n";

// The data segments' arrays: their bytes go to `blob`, each array becomes a pointer into it.
// wasm2c writes each as "static const u8 NAME[] = {" and lines of "0x.., " up to "};".
result<std::string> move_data_out(const std::string& c, std::string& blob, const std::string& blob_path) {
  static const std::string open = "static const u8 data_segment_data_";
  std::string out;
  out.reserve(c.size() / 4);
  std::string defines;
  std::size_t pos = 0;
  while (true) {
    const std::size_t at = c.find(open, pos);
    if (at == std::string::npos) break;
    const std::size_t name_end = c.find("[] = {", at);
    const std::size_t close = c.find("};", at);
    if (name_end == std::string::npos || close == std::string::npos || name_end > close)
      return status(errc::internal, "wasm2c's C: a data segment that is not an array of bytes");
    out.append(c, pos, at - pos);
    const std::string name = c.substr(at + std::strlen("static const u8 "), name_end - at - std::strlen("static const u8 "));
    defines += "#define " + name + " (cuzk_data_blob + " + std::to_string(blob.size()) + "u)\n";
    for (std::size_t i = name_end + 6; i < close;) {
      if (c[i] == '0' && c[i + 1] == 'x') {
        const auto hex = [](char h) { return h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10; };
        blob.push_back(static_cast<char>(hex(c[i + 2]) * 16 + hex(c[i + 3])));
        i += 4;
      } else {
        ++i;
      }
    }
    pos = close + 2;
  }
  out.append(c, pos, std::string::npos);
  if (blob_path.find_first_of("\"\\\n\r") != std::string::npos)
    return status(errc::invalid_argument, blob_path + ": the witness cache's path cannot be named to the assembler");
  // The blob, placed by the assembler; its C name is hidden, so references are PC-relative.
  const std::string head =
      "extern const u8 cuzk_data_blob[] __attribute__((visibility(\"hidden\")));\n"
      "__asm__(\".pushsection .rodata\\n.balign 16\\ncuzk_data_blob:\\n.incbin \\\"" +
      blob_path + "\\\"\\n.byte 0\\n.popsection\\n\");\n" + defines;
  // Before the first use: the arrays stood after the function declarations, which do not use them.
  const std::size_t first_use = out.find("static void init_memories");
  const std::size_t insert_at = first_use == std::string::npos ? out.find("LOAD_DATA(") : first_use;
  if (insert_at == std::string::npos) {
    if (blob.empty()) return out;
    return status(errc::internal, "wasm2c's C: data segments but no memory to load them into");
  }
  out.insert(insert_at, head);
  return out;
}

status replace_once(std::string& text, const std::string& what, const std::string& with, const std::string& file) {
  const std::size_t at = text.find(what);
  if (at == std::string::npos || text.find(what, at + 1) != std::string::npos)
    return {errc::unsupported, file + ": not the wabt runtime cuzk knows (1.0.32): expected '" + what + "' once"};
  text.replace(at, what.size(), with);
  return status::ok();
}

// The loads and stores of wasm2c 1.0.32's C (little-endian hosts), and its bulk memory functions,
// each given the trace's hook (circom_wasm_glue_abi.h): one test of a pointer when there is none.
status add_memory_hooks(std::string& text) {
  const std::pair<const char*, const char*> hooks[] = {
      {"    wasm_rt_memcpy(&result, &mem->data[addr], sizeof(t1)); \\\n",
       "    if (__builtin_expect(mem->cuzk_trace != NULL, 0)) cuzk_trace_load(mem->cuzk_trace, addr, sizeof(t1)); \\\n"
       "    wasm_rt_memcpy(&result, &mem->data[addr], sizeof(t1)); \\\n"},
      {"    wasm_rt_memcpy(&mem->data[addr], &wrapped, sizeof(t1));            \\\n",
       "    if (__builtin_expect(mem->cuzk_trace != NULL, 0)) cuzk_trace_store(mem->cuzk_trace, addr, sizeof(t1)); \\\n"
       "    wasm_rt_memcpy(&mem->data[addr], &wrapped, sizeof(t1));            \\\n"},
      {"  memset(mem->data + d, val, n);\n",
       "  if (mem->cuzk_trace != NULL) cuzk_trace_store(mem->cuzk_trace, d, n);\n  memset(mem->data + d, val, n);\n"},
      {"  memmove(dest->data + dest_addr, src->data + src_addr, n);\n",
       "  if (src->cuzk_trace != NULL) cuzk_trace_load(src->cuzk_trace, src_addr, n);\n"
       "  if (dest->cuzk_trace != NULL) cuzk_trace_store(dest->cuzk_trace, dest_addr, n);\n"
       "  memmove(dest->data + dest_addr, src->data + src_addr, n);\n"},
      {"  LOAD_DATA((*dest), dest_addr, src + src_addr, n);\n}",
       "  if (dest->cuzk_trace != NULL) cuzk_trace_store(dest->cuzk_trace, dest_addr, n);\n"
       "  LOAD_DATA((*dest), dest_addr, src + src_addr, n);\n}"},
  };
  for (const auto& [what, with] : hooks) CUZK_TRY(replace_once(text, what, with, "wasm2c's C"));
  return status::ok();
}

// The linear memory's pages as the module declares them, initial and maximum (65536 where it
// declares none), from wasm2c 1.0.32's allocation of it in init_memories: what a generator needs
// to know its instances' memory before it makes one (calculation_memory.hpp).
result<std::pair<uint32_t, uint32_t>> declared_memory_pages(const std::string& text) {
  const std::string call = "wasm_rt_allocate_memory(&instance->w2c_memory, ";
  const std::size_t at = text.find(call);
  const auto fail = [] {
    return status(errc::unsupported, "wasm2c's C: its memory is not allocated as the wasm2c cuzk knows (1.0.32) does");
  };
  if (at == std::string::npos || text.find(call, at + 1) != std::string::npos) return fail();
  const char* p = text.c_str() + at + call.size();
  char* end = nullptr;
  const unsigned long long initial = std::strtoull(p, &end, 10);
  if (end == p || std::strncmp(end, ", ", 2) != 0) return fail();
  p = end + 2;
  const unsigned long long maximum = std::strtoull(p, &end, 10);
  if (end == p || *end != ')' || initial > maximum || maximum > 65536) return fail();
  return std::pair{static_cast<uint32_t>(initial), static_cast<uint32_t>(maximum)};
}

}  // namespace

result<std::string> rewrite_generated_c(const std::string& c, const std::string& dir) {
  std::string blob;
  auto moved = move_data_out(c, blob, dir + "/data.bin");
  if (!moved) return moved.error();
  std::string text = std::move(*moved);
  {
    std::ofstream f(dir + "/data.bin", std::ios::binary | std::ios::trunc);
    f.write(blob.data(), static_cast<std::streamsize>(blob.size()));
    if (!f) return status(errc::io_error, dir + "/data.bin: cannot write");
  }

  // The call depth per instance.
  const std::size_t macros = text.find(depth_macros);
  if (macros == std::string::npos)
    return status(errc::unsupported, "wasm2c's C: not the call-depth macros of the wasm2c cuzk knows (1.0.32)");
  text.replace(macros, std::strlen(depth_macros), instance_depth_macros);

  // Every load and store of the circuit's code tells a trace, where the calculation has one.
  CUZK_TRY(add_memory_hooks(text));

  // Each field function's definition is renamed <name>_wasm; its stub takes the name.
  std::vector<const field_function*> done;
  for (const field_function& f : field_functions) {
    const shape_text t = text_of(f.shape);
    const std::string name(f.name);
    // "\nstatic void w2c_Fr_add(Z_circuit_instance_t* instance, u32 w2c_pR, ...) {\n"
    const std::string start = "\nstatic " + std::string(t.returns) + " w2c_" + name + "(Z_circuit_instance_t* instance";
    const std::size_t at = text.find(start);
    if (at == std::string::npos) continue;
    const std::size_t end = text.find(") {\n", at);
    const std::size_t line_end = text.find('\n', at + 1);
    if (end == std::string::npos || end > line_end) continue;  // a declaration, or not this shape
    const std::string params = text.substr(at + start.size(), end - at - start.size());
    int count = 0;
    for (std::size_t i = params.find(", u32 w2c_"); i != std::string::npos; i = params.find(", u32 w2c_", i + 1)) ++count;
    const auto commas = std::count(params.begin(), params.end(), ',');
    if (count != t.arguments || commas != t.arguments) continue;
    text.insert(at + std::strlen("\nstatic ") + std::strlen(t.returns) + std::strlen(" w2c_") + name.size(), "_wasm");
    done.push_back(&f);
  }
  const auto stubbed = [&](std::string_view name) {
    return std::any_of(done.begin(), done.end(), [&](const field_function* d) { return d->name == name; });
  };
  // The stop flag is read in the stubs alone: a wasm whose Fr_isTrue has no stub could not be
  // stopped, so it is refused rather than run unbounded.
  if (!stubbed("Fr_isTrue"))
    return status(errc::unsupported, "its Fr_isTrue is not the function of circom 2's wasm that cuzk knows, so its calculation "
                                     "could not be stopped at a time limit or on cancel");
  const bool can_trace = traceable(text, done);
  std::string prelude =
      "#include <string.h>\n#include \"circom_wasm_glue_abi.h\"\n"
      "#define CUZK_HEAD(instance) ((struct cuzk_runtime_head*)(instance)->Z_runtime_instance)\n";
  std::string tail = "\n/* cuzk: the field functions' stubs and the test hooks (generated_c.hpp). */\n#include \"wasm-rt-impl.h\"\n";
  for (const auto* f : done) tail += stub_of(*f);
  tail += test_hooks(done);
  // Which arithmetic stubs exist: the generator uses the native field only where all of them do.
  bool arithmetic = true;
  for (const char* name : {"Fr_add", "Fr_sub", "Fr_mul", "Fr_neg", "Fr_toLongNormal", "Fr_copy"}) arithmetic = arithmetic && stubbed(name);
  tail += std::string("__attribute__((visibility(\"default\"))) int cuzk_witness_native_stubs(void) { return ") +
          (arithmetic ? "1" : "0") + "; }\n";
  tail += std::string("__attribute__((visibility(\"default\"))) int cuzk_witness_traceable(void) { return ") +
          (can_trace ? "1" : "0") + "; }\n";
  auto pages = declared_memory_pages(text);
  if (!pages) return pages.error();
  tail += "__attribute__((visibility(\"default\"))) void cuzk_witness_memory_pages(u32* initial, u32* maximum) { *initial = " +
          std::to_string(pages->first) + "u; *maximum = " + std::to_string(pages->second) + "u; }\n";
  return prelude + text + tail;
}

status write_thread_local_runtime(const std::string& runtime_dir, const std::string& header_dir, const std::string& dir) {
  auto impl_c = formats::read_text_file(runtime_dir + "/wasm-rt-impl.c");
  auto impl_h = formats::read_text_file(runtime_dir + "/wasm-rt-impl.h");
  auto rt_h = formats::read_text_file(header_dir + "/wasm-rt.h");
  if (!impl_c || !impl_h || !rt_h)
    return {errc::unavailable, runtime_dir + ": wabt's wasm2c runtime is missing: install wabt (apt-get install wabt)"};
  std::string c = *impl_c, h = *impl_h;
  const std::string f = runtime_dir + "/wasm-rt-impl.c", fh = runtime_dir + "/wasm-rt-impl.h";
  CUZK_TRY(replace_once(c, "\njmp_buf wasm_rt_jmp_buf;\n", "\n_Thread_local jmp_buf wasm_rt_jmp_buf;\n", f));
  CUZK_TRY(replace_once(c, "\nstatic jmp_buf* g_unwind_target;\n", "\nstatic _Thread_local jmp_buf* g_unwind_target;\n", f));
  // The call depth is counted per instance by the circuit's code (FUNC_PROLOGUE above), but the
  // runtime still saves and restores its own counters on every entry and trap: per thread too, so
  // that no two calculations write one variable. (The exception state stays shared: circom's wasm
  // throws no wasm exceptions, and 64 KiB of it per thread would be waste.)
  CUZK_TRY(replace_once(c, "\nuint32_t wasm_rt_call_stack_depth;\n", "\n_Thread_local uint32_t wasm_rt_call_stack_depth;\n", f));
  CUZK_TRY(replace_once(c, "\nuint32_t wasm_rt_saved_call_stack_depth;\n",
                        "\n_Thread_local uint32_t wasm_rt_saved_call_stack_depth;\n", f));
  CUZK_TRY(replace_once(h, "extern uint32_t wasm_rt_saved_call_stack_depth;",
                        "extern _Thread_local uint32_t wasm_rt_saved_call_stack_depth;", fh));
  CUZK_TRY(replace_once(h, "extern jmp_buf wasm_rt_jmp_buf;", "extern _Thread_local jmp_buf wasm_rt_jmp_buf;", fh));
  std::string rt = *rt_h;
  CUZK_TRY(replace_once(rt, "extern uint32_t wasm_rt_call_stack_depth;", "extern _Thread_local uint32_t wasm_rt_call_stack_depth;",
                        header_dir + "/wasm-rt.h"));
  CUZK_TRY(replace_once(rt, "  uint32_t size;\n} wasm_rt_memory_t;",
                        "  uint32_t size;\n  /* cuzk: the calculation's trace (circom_wasm_glue_abi.h), or NULL. */\n"
                        "  void* cuzk_trace;\n"
                        "  /* cuzk: asked before the memory grows to `pages` (0: it does not), or NULL. */\n"
                        "  int (*cuzk_grow)(void* context, uint32_t pages);\n  void* cuzk_grow_context;\n} wasm_rt_memory_t;",
                        header_dir + "/wasm-rt.h"));
  // A grow beyond what the calculation's memory allows fails as one beyond the module's maximum.
  CUZK_TRY(replace_once(c, "if (new_pages < old_pages || new_pages > memory->max_pages) {",
                        "if (new_pages < old_pages || new_pages > memory->max_pages ||\n"
                        "      (memory->cuzk_grow && !memory->cuzk_grow(memory->cuzk_grow_context, new_pages))) {",
                        f));
  const std::pair<std::string, const std::string*> files[] = {{"wasm-rt-impl.c", &c}, {"wasm-rt-impl.h", &h}, {"wasm-rt.h", &rt}};
  for (const auto& [name, content] : files) {
    std::ofstream out(dir + "/" + name, std::ios::binary | std::ios::trunc);
    out << *content;
    if (!out) return {errc::io_error, dir + "/" + name + ": cannot write"};
  }
  return status::ok();
}

}  // namespace cuzk::witness
