// SPDX-License-Identifier: MIT OR Apache-2.0
// The changes to wasm2c's C and wabt's runtime; see generated_c.hpp.
#include "witness/generated_c.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "formats/file_io.hpp"

namespace cuzk::witness {

namespace {

// The functions of circom's wasm that get a stub, with the arguments the stub expects (each a u32
// address); a wasm whose function has other arguments keeps its own (a circom version cuzk has
// not seen).
struct replaced_function {
  const char* name;
  const char* returns;
  int arguments;
};
constexpr replaced_function replaced[] = {
    {"Fr_add", "void", 3}, {"Fr_sub", "void", 3},    {"Fr_mul", "void", 3},
    {"Fr_neg", "void", 2}, {"Fr_copy", "void", 2},   {"Fr_isTrue", "u32", 1}, {"Fr_toLongNormal", "void", 1},
};

// The stub of each function: see generated_c.hpp. `head` is the runtime's cuzk_runtime_head.
std::string stub_of(const replaced_function& f) {
  const std::string n = f.name;
  std::ostringstream s;
  const char* params = f.arguments == 3 ? "u32 r, u32 a, u32 b" : f.arguments == 2 ? "u32 r, u32 a" : "u32 a";
  const char* args = f.arguments == 3 ? "r, a, b" : f.arguments == 2 ? "r, a" : "a";
  s << "static " << f.returns << " w2c_" << n << "(Z_circuit_instance_t* instance, " << params << ") {\n"
    << "  struct cuzk_runtime_head* head = CUZK_HEAD(instance);\n"
    << "  if (cuzk_stop_requested(head)) cuzk_witness_stopped(head);\n";
  const auto native = [&](const char* op) {
    s << "  if (head->native) {\n"
      << "    if (head->native->" << op << "(instance->w2c_memory.data, instance->w2c_memory.size, " << args
      << ")) wasm_rt_trap(WASM_RT_TRAP_OOB);\n"
      << "    return;\n"
      << "  }\n";
  };
  if (n == "Fr_add") native("add");
  if (n == "Fr_sub") native("sub");
  if (n == "Fr_mul") native("mul");
  if (n == "Fr_neg") native("neg");
  if (n == "Fr_toLongNormal") native("to_long_normal");
  if (n == "Fr_copy") {
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
  }
  s << "  " << (std::strcmp(f.returns, "void") == 0 ? "" : "return ") << "w2c_" << n << "_wasm(instance, " << args << ");\n"
    << "}\n\n";
  return s.str();
}

// The test hooks: one function of the wasm's own (own != 0) or its stub, on the instance's memory;
// and the wasm's own Fr_toLongNormal, which a test reads values through. -1 for a trap, -2 for a
// function the wasm does not have.
std::string test_hooks(const std::vector<const replaced_function*>& done) {
  bool has_own_to_long_normal = false;
  for (const auto* d : done) has_own_to_long_normal |= std::strcmp(d->name, "Fr_toLongNormal") == 0;
  std::ostringstream s;
  s << "__attribute__((visibility(\"default\"))) int cuzk_witness_test_field_op(struct cuzk_runtime_head* head, "
       "uint32_t op, int own, uint32_t r, uint32_t a, uint32_t b, uint32_t* result) {\n"
    << "  Z_circuit_instance_t* instance = (Z_circuit_instance_t*)head->circuit;\n"
    << "  head->depth = 0;\n"
    << "  if (wasm_rt_impl_try() != 0) return -1;\n"
    << "  (void)a; (void)b; (void)r; *result = 0;\n"
    << "  switch (op) {\n";
  for (std::size_t i = 0; i < std::size(replaced); ++i) {
    const replaced_function& f = replaced[i];
    bool present = false;
    for (const auto* d : done) present |= d == &f;
    if (!present) continue;
    const std::string n = f.name;
    const char* args = f.arguments == 3 ? "r, a, b" : f.arguments == 2 ? "r, a" : "a";
    const std::string call = "(instance, " + std::string(args) + ")";
    const std::string store = std::strcmp(f.returns, "void") == 0 ? "" : "*result = ";
    s << "    case " << i << ": if (own) " << store << "w2c_" << n << "_wasm" << call << "; else " << store << "w2c_" << n << call
      << "; return 0;\n";
  }
  s << "    case 100: w2c_Fr_toLongNormal" << (has_own_to_long_normal ? "_wasm" : "") << "(instance, a); return 0;\n"
    << "    default: return -2;\n"
    << "  }\n"
    << "}\n";
  return s.str();
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

  // Each replaced function's definition is renamed <name>_wasm; its stub takes the name.
  std::vector<const replaced_function*> done;
  for (const replaced_function& f : replaced) {
    // "\nstatic void w2c_Fr_add(Z_circuit_instance_t* instance, u32 w2c_pR, ...) {\n"
    const std::string start = "\nstatic " + std::string(f.returns) + " w2c_" + f.name + "(Z_circuit_instance_t* instance";
    const std::size_t at = text.find(start);
    if (at == std::string::npos) continue;
    const std::size_t end = text.find(") {\n", at);
    const std::size_t line_end = text.find('\n', at + 1);
    if (end == std::string::npos || end > line_end) continue;  // a declaration, or not this shape
    const std::string params = text.substr(at + start.size(), end - at - start.size());
    int count = 0;
    for (std::size_t i = params.find(", u32 w2c_"); i != std::string::npos; i = params.find(", u32 w2c_", i + 1)) ++count;
    const auto commas = std::count(params.begin(), params.end(), ',');
    if (count != f.arguments || commas != f.arguments) continue;
    text.insert(at + std::strlen("\nstatic ") + std::strlen(f.returns) + std::strlen(" w2c_") + std::strlen(f.name), "_wasm");
    done.push_back(&f);
  }
  // The stop flag is read in the stubs alone: a wasm whose Fr_isTrue has no stub could not be
  // stopped, so it is refused rather than run unbounded.
  if (std::none_of(done.begin(), done.end(), [](const replaced_function* d) { return std::strcmp(d->name, "Fr_isTrue") == 0; }))
    return status(errc::unsupported, "its Fr_isTrue is not the function of circom 2's wasm that cuzk knows, so its calculation "
                                     "could not be stopped at a time limit or on cancel");
  std::string prelude =
      "#include <string.h>\n#include \"circom_wasm_glue_abi.h\"\n"
      "#define CUZK_HEAD(instance) ((struct cuzk_runtime_head*)(instance)->Z_runtime_instance)\n";
  std::string tail = "\n/* cuzk: the native field's stubs and the test hooks (generated_c.hpp). */\n#include \"wasm-rt-impl.h\"\n";
  for (const auto* f : done) tail += stub_of(*f);
  tail += test_hooks(done);
  // Which arithmetic stubs exist: the generator uses the native field only where all of them do.
  bool arithmetic = true;
  for (const char* name : {"Fr_add", "Fr_sub", "Fr_mul", "Fr_neg", "Fr_toLongNormal"})
    arithmetic = arithmetic && std::any_of(done.begin(), done.end(), [&](const replaced_function* d) { return std::strcmp(d->name, name) == 0; });
  tail += std::string("__attribute__((visibility(\"default\"))) int cuzk_witness_native_stubs(void) { return ") +
          (arithmetic ? "1" : "0") + "; }\n";
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
  const std::pair<std::string, const std::string*> files[] = {{"wasm-rt-impl.c", &c}, {"wasm-rt-impl.h", &h}, {"wasm-rt.h", &rt}};
  for (const auto& [name, content] : files) {
    std::ofstream out(dir + "/" + name, std::ios::binary | std::ios::trunc);
    out << *content;
    if (!out) return {errc::io_error, dir + "/" + name + ": cannot write"};
  }
  return status::ok();
}

}  // namespace cuzk::witness
