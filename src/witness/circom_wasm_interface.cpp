// SPDX-License-Identifier: MIT OR Apache-2.0
// circom's witness calculator interface checked in a module's sections; see
// circom_wasm_interface.hpp. The binary format: WebAssembly Core Specification 1.0, chapter 5
// (https://www.w3.org/TR/wasm-core-1/#binary-format%E2%91%A0).
#include "witness/circom_wasm_interface.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace cuzk::witness {

namespace {

struct signature {
  std::vector<uint8_t> params, results;  // value types (0x7f i32, 0x7e i64, ...)
  bool operator==(const signature&) const = default;
};

// What circom 2's witness code exports and imports, with the signatures the glue calls them by
// (circom_wasm_glue.c). The order of the exports is the order the glue needs them in, so that a
// module that is not circom's is told the first thing it lacks.
constexpr uint8_t i32 = 0x7f;
const signature to_i32{{}, {i32}}, nothing{{}, {}}, i32_to_nothing{{i32}, {}}, i32_to_i32{{i32}, {i32}},
    i32x2_to_nothing{{i32, i32}, {}}, i32x2_to_i32{{i32, i32}, {i32}}, i32x3_to_nothing{{i32, i32, i32}, {}};

struct named_function {
  std::string_view name;
  const signature& sig;
};

const named_function circom_exports[] = {
    {"getVersion", to_i32},
    {"getMinorVersion", to_i32},
    {"getPatchVersion", to_i32},
    {"getFieldNumLen32", to_i32},
    {"getRawPrime", nothing},
    {"getWitnessSize", to_i32},
    {"getInputSize", to_i32},
    {"init", i32_to_nothing},
    {"getInputSignalSize", i32x2_to_i32},
    {"setInputSignal", i32x3_to_nothing},
    {"getWitness", i32_to_nothing},
    {"readSharedRWMemory", i32_to_i32},
    {"writeSharedRWMemory", i32x2_to_nothing},
    {"getSharedRWMemoryStart", to_i32},
    {"getMessageChar", to_i32},
};

const named_function circom_imports[] = {
    {"exceptionHandler", i32_to_nothing},
    {"printErrorMessage", nothing},
    {"writeBufferMessage", nothing},
    {"showSharedRWMemory", nothing},
};

std::string type_name(uint8_t t) {
  switch (t) {
    case 0x7f:
      return "i32";
    case 0x7e:
      return "i64";
    case 0x7d:
      return "f32";
    case 0x7c:
      return "f64";
    case 0x7b:
      return "v128";
    case 0x70:
      return "funcref";
    case 0x6f:
      return "externref";
    default:
      return "type 0x" + std::string(1, "0123456789abcdef"[t >> 4]) + "0123456789abcdef"[t & 15];
  }
}

std::string describe(const signature& s) {
  std::string out = "takes (";
  for (std::size_t i = 0; i < s.params.size(); ++i) out += (i ? ", " : "") + type_name(s.params[i]);
  out += ") and returns ";
  if (s.results.empty()) return out + "nothing";
  for (std::size_t i = 0; i < s.results.size(); ++i) out += (i ? ", " : "") + type_name(s.results[i]);
  return out;
}

// Reads the binary format; the first error sticks, naming the byte where it was met.
class reader {
 public:
  explicit reader(std::span<const uint8_t> b, std::size_t base = 0) : b_(b), base_(base) {}

  bool ok() const noexcept { return error_.empty(); }
  bool at_end() const noexcept { return pos_ >= b_.size(); }
  const std::string& error() const noexcept { return error_; }
  std::size_t offset() const noexcept { return base_ + pos_; }

  uint8_t byte() {
    if (!ok()) return 0;
    if (pos_ >= b_.size()) return fail("the module ends inside a section"), 0;
    return b_[pos_++];
  }
  // An unsigned LEB128 of at most 32 bits.
  uint32_t u32() {
    uint64_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      const uint8_t x = byte();
      if (!ok()) return 0;
      v |= uint64_t{x & 0x7fu} << shift;
      if (!(x & 0x80)) {
        if (v > 0xffffffffu) break;
        return static_cast<uint32_t>(v);
      }
    }
    fail("a number longer than 32 bits");
    return 0;
  }
  // An unsigned LEB128 of at most 64 bits (a memory64 limit).
  void skip_u64() {
    for (int i = 0; i < 10; ++i)
      if (!(byte() & 0x80) || !ok()) return;
    fail("a number longer than 64 bits");
  }
  std::span<const uint8_t> bytes(uint32_t n) {
    if (!ok()) return {};
    if (n > b_.size() - pos_) return fail("a length past the end of its section"), std::span<const uint8_t>{};
    auto s = b_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  std::string name() {
    const auto s = bytes(u32());
    return {reinterpret_cast<const char*>(s.data()), s.size()};
  }
  std::vector<uint8_t> value_types() {
    const uint32_t n = u32();
    const auto s = bytes(n);
    return {s.begin(), s.end()};
  }
  void limits(bool memory) {
    const uint8_t flags = byte();
    const bool wide = memory && (flags & 4);
    wide ? skip_u64() : (void)u32();
    if (flags & 1) wide ? skip_u64() : (void)u32();
  }
  void fail(std::string what) {
    if (ok()) error_ = std::move(what) + " at byte " + std::to_string(offset());
  }

 private:
  std::span<const uint8_t> b_;
  std::size_t base_;
  std::size_t pos_ = 0;
  std::string error_;
};

struct import_entry {
  std::string module, name;
  uint8_t kind = 0;              // 0 function, 1 table, 2 memory, 3 global
  std::optional<uint32_t> type;  // a function's type index
};

struct export_entry {
  std::string name;
  uint8_t kind = 0;
  uint32_t index = 0;
};

struct declarations {
  std::vector<signature> types;
  std::vector<import_entry> imports;
  std::vector<uint32_t> function_types;  // the module's own functions, after the imported ones
  std::vector<export_entry> exports;
};

const char* kind_name(uint8_t kind) {
  switch (kind) {
    case 0:
      return "a function";
    case 1:
      return "a table";
    case 2:
      return "a memory";
    case 3:
      return "a global";
    default:
      return "something";
  }
}

// The sections the interface is declared in; the rest are skipped by their sizes.
status read_declarations(std::span<const uint8_t> wasm, const std::string& source, declarations& d) {
  static constexpr uint8_t magic[] = {0, 'a', 's', 'm'};
  if (wasm.size() < 8 || !std::equal(std::begin(magic), std::end(magic), wasm.begin()))
    return {errc::invalid_argument, source + ": not a WebAssembly module (it does not begin with \\0asm)"};
  if (wasm[4] != 1 || wasm[5] != 0 || wasm[6] != 0 || wasm[7] != 0)
    return {errc::invalid_argument, source + ": not a WebAssembly module of version 1, which circom writes"};
  reader r(wasm.subspan(8), 8);
  while (r.ok() && !r.at_end()) {
    const uint8_t id = r.byte();
    const std::size_t start = r.offset();
    const auto body = r.bytes(r.u32());
    if (!r.ok()) break;
    reader s(body, start);
    switch (id) {
      case 1: {  // types
        for (uint32_t n = s.u32(); n > 0 && s.ok(); --n) {
          if (s.byte() != 0x60) s.fail("a type that is not a function type");
          signature sig;
          sig.params = s.value_types();
          sig.results = s.value_types();
          d.types.push_back(std::move(sig));
        }
        break;
      }
      case 2: {  // imports
        for (uint32_t n = s.u32(); n > 0 && s.ok(); --n) {
          import_entry e;
          e.module = s.name();
          e.name = s.name();
          e.kind = s.byte();
          switch (e.kind) {
            case 0:
              e.type = s.u32();
              break;
            case 1:
              s.byte(), s.limits(false);
              break;
            case 2:
              s.limits(true);
              break;
            case 3:
              s.byte(), s.byte();
              break;
            default:
              s.fail("an import of an unknown kind");
          }
          d.imports.push_back(std::move(e));
        }
        break;
      }
      case 3: {  // functions
        for (uint32_t n = s.u32(); n > 0 && s.ok(); --n) d.function_types.push_back(s.u32());
        break;
      }
      case 7: {  // exports
        for (uint32_t n = s.u32(); n > 0 && s.ok(); --n) {
          export_entry e;
          e.name = s.name();
          e.kind = s.byte();
          e.index = s.u32();
          d.exports.push_back(std::move(e));
        }
        break;
      }
      default:
        break;
    }
    if (!s.ok()) return {errc::invalid_argument, source + ": not valid WebAssembly: " + s.error()};
  }
  if (!r.ok()) return {errc::invalid_argument, source + ": not valid WebAssembly: " + r.error()};
  return status::ok();
}

}  // namespace

status check_circom_wasm_interface(std::span<const uint8_t> wasm, const std::string& source) {
  declarations d;
  CUZK_TRY(read_declarations(wasm, source, d));
  const std::string not_circom = source + ": not a circom witness calculator: ";
  const auto type_of = [&](uint32_t index) -> const signature* {
    return index < d.types.size() ? &d.types[index] : nullptr;
  };

  std::vector<const signature*> functions;  // the function index space: imports first
  for (const import_entry& e : d.imports) {
    const named_function* known = nullptr;
    for (const auto& f : circom_imports)
      if (e.module == "runtime" && e.kind == 0 && e.name == f.name) known = &f;
    if (!known) {
      std::string list;
      for (const auto& f : circom_imports)
        list += (list.empty() ? "runtime." : ", runtime.") + std::string(f.name);
      return {errc::invalid_argument, not_circom + "it imports " + e.module + "." + e.name + " (" +
                                          kind_name(e.kind) +
                                          "), and circom's witness code imports only the functions " + list};
    }
    const signature* sig = type_of(*e.type);
    if (!sig || *sig != known->sig)
      return {errc::invalid_argument, not_circom + "its import runtime." + e.name + " " +
                                          (sig ? describe(*sig) : "has no valid type") + "; circom's " +
                                          describe(known->sig)};
    functions.push_back(sig);
  }
  for (const uint32_t t : d.function_types) functions.push_back(type_of(t));

  const auto find_export = [&](std::string_view name) -> const export_entry* {
    for (const export_entry& e : d.exports)
      if (e.name == name) return &e;
    return nullptr;
  };
  for (const auto& f : circom_exports) {
    const export_entry* e = find_export(f.name);
    if (!e || e->kind != 0)
      return {errc::invalid_argument, not_circom + "it exports no " + std::string(f.name)};
    const signature* sig = e->index < functions.size() ? functions[e->index] : nullptr;
    if (!sig || *sig != f.sig)
      return {errc::invalid_argument, not_circom + "its export " + std::string(f.name) + " " +
                                          (sig ? describe(*sig) : "names no function of the module") +
                                          "; circom's " + describe(f.sig)};
  }
  // The glue reads and grows the instance's memory under wasm2c's name for an export "memory".
  const export_entry* memory = find_export("memory");
  if (!memory || memory->kind != 2)
    return {errc::invalid_argument, not_circom + "it exports no memory named \"memory\""};
  return status::ok();
}

}  // namespace cuzk::witness
