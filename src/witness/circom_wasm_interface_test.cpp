// SPDX-License-Identifier: MIT OR Apache-2.0
// A .wasm that is not circom's witness code, refused by its name before any translation or
// compile (circom_wasm_interface.hpp; docs/HARDENING.md, finding 26): bytes that are not
// WebAssembly, a module cut short, modules written here in WebAssembly's text format and
// assembled with wabt's wat2wasm (another module's exports, circom's exports with one signature
// changed, a foreign import), and one whose code wasm2c refuses. circom's own fixtures pass.
// Skipped where wabt is not installed (scripts/setup.sh installs it).
#include "witness/circom_wasm_interface.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "formats/formats_test_util.hpp"
#include "witness/wasm_compiler.hpp"

namespace cuzk::witness {
namespace {

namespace fs = std::filesystem;

const std::string data_dir = CUZK_TEST_DATA_DIR "/witness";

using formats::testing::read_bytes;

// circom's exports, each with a body of the right type (a constant or nothing), and its memory.
std::string circom_like_exports(const std::string& get_witness_params = "(param i32)") {
  return R"((memory (export "memory") 1)
  (func (export "getVersion") (result i32) i32.const 2)
  (func (export "getMinorVersion") (result i32) i32.const 2)
  (func (export "getPatchVersion") (result i32) i32.const 3)
  (func (export "getFieldNumLen32") (result i32) i32.const 8)
  (func (export "getRawPrime"))
  (func (export "getWitnessSize") (result i32) i32.const 1)
  (func (export "getInputSize") (result i32) i32.const 0)
  (func (export "init") (param i32))
  (func (export "getInputSignalSize") (param i32 i32) (result i32) i32.const 0)
  (func (export "setInputSignal") (param i32 i32 i32))
  (func (export "getWitness") )" +
         get_witness_params + R"()
  (func (export "readSharedRWMemory") (param i32) (result i32) i32.const 0)
  (func (export "writeSharedRWMemory") (param i32 i32))
  (func (export "getSharedRWMemoryStart") (result i32) i32.const 8)
  (func (export "getMessageChar") (result i32) i32.const 0))";
}

class CircomWasmInterface : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v wat2wasm >/dev/null 2>&1 && command -v wasm2c >/dev/null 2>&1") != 0)
      GTEST_SKIP() << "wabt not installed (apt-get install wabt)";
    dir_ = (fs::temp_directory_path() / ("cuzk-wasm-interface-test-" + std::to_string(::getpid()))).string();
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  // `wat` assembled by wat2wasm (`flags` added), as bytes.
  std::vector<uint8_t> assemble(const std::string& wat, const std::string& flags = "") {
    const std::string src = dir_ + "/module.wat", out = dir_ + "/module.wasm";
    std::ofstream(src) << wat;
    EXPECT_EQ(std::system(("wat2wasm " + flags + " " + src + " -o " + out).c_str()), 0) << wat;
    return read_bytes(out);
  }

  // The compiler's answer for these bytes under the name "module.wasm"; the cache is checked to
  // hold nothing afterwards where the check came before any work.
  status compile(std::span<const uint8_t> wasm) {
    auto lib = compile_witness_generator(wasm, "module.wasm", dir_ + "/cache");
    if (lib) return status::ok();
    return lib.error();
  }

  std::string dir_;
};

TEST_F(CircomWasmInterface, bytes_that_are_not_webassembly_are_named_as_such) {
  std::mt19937 rng(7);
  std::vector<uint8_t> random(4096);
  for (auto& b : random) b = static_cast<uint8_t>(rng());
  auto s = compile(random);
  EXPECT_EQ(s.code(), errc::invalid_argument);
  EXPECT_EQ(s.message(), "module.wasm: not a WebAssembly module (it does not begin with \\0asm)");
  EXPECT_FALSE(fs::exists(dir_ + "/cache")) << "nothing is made for a file refused";

  // A circom module cut short names the byte where it ends.
  const auto circom = read_bytes(data_dir + "/bn128/range_check.wasm");
  s = compile(std::span(circom).first(200));
  EXPECT_EQ(s.code(), errc::invalid_argument);
  EXPECT_TRUE(s.message().starts_with("module.wasm: not valid WebAssembly: ")) << s.message();
  EXPECT_NE(s.message().find(" at byte "), std::string::npos) << s.message();
}

TEST_F(CircomWasmInterface, another_module_is_told_the_first_export_of_circoms_it_lacks) {
  auto s = compile(assemble(R"((module (func (export "add") (param i32 i32) (result i32)
    local.get 0 local.get 1 i32.add)))"));
  EXPECT_EQ(s.code(), errc::invalid_argument);
  EXPECT_EQ(s.message(), "module.wasm: not a circom witness calculator: it exports no getVersion");

  // All but one: the one missing is named.
  std::string wat = "(module " + circom_like_exports() + ")";
  const std::string size_export = R"((func (export "getWitnessSize") (result i32) i32.const 1))";
  wat.replace(wat.find(size_export), size_export.size(), "");
  s = compile(assemble(wat));
  EXPECT_EQ(s.code(), errc::invalid_argument);
  EXPECT_EQ(s.message(), "module.wasm: not a circom witness calculator: it exports no getWitnessSize");
  EXPECT_FALSE(fs::exists(dir_ + "/cache"));

  // No memory exported.
  wat = "(module " + circom_like_exports() + ")";
  wat.replace(wat.find("(export \"memory\")"), 17, "");
  s = compile(assemble(wat));
  EXPECT_EQ(s.message(),
            "module.wasm: not a circom witness calculator: it exports no memory named \"memory\"");
}

TEST_F(CircomWasmInterface, a_signature_or_an_import_that_is_not_circoms_is_named) {
  auto s = compile(assemble("(module " + circom_like_exports("(param i32 i32)") + ")"));
  EXPECT_EQ(s.code(), errc::invalid_argument);
  EXPECT_EQ(s.message(),
            "module.wasm: not a circom witness calculator: its export getWitness takes (i32, i32) and "
            "returns nothing; "
            "circom's takes (i32) and returns nothing");

  s = compile(assemble(R"((module (import "env" "abort" (func)) )" + circom_like_exports() + ")"));
  EXPECT_EQ(s.code(), errc::invalid_argument);
  EXPECT_EQ(
      s.message(),
      "module.wasm: not a circom witness calculator: it imports env.abort (a function), and circom's witness "
      "code imports only the functions runtime.exceptionHandler, runtime.printErrorMessage, "
      "runtime.writeBufferMessage, runtime.showSharedRWMemory");

  s = compile(assemble(R"((module (import "runtime" "exceptionHandler" (func (param i64))) )" +
                       circom_like_exports() + ")"));
  EXPECT_EQ(s.message(),
            "module.wasm: not a circom witness calculator: its import runtime.exceptionHandler takes (i64) "
            "and returns "
            "nothing; circom's takes (i32) and returns nothing");
}

TEST_F(CircomWasmInterface, code_that_wasm2c_refuses_is_the_files_fault_not_cuzks) {
  // circom's interface, and a function whose body leaves no value where it must return one:
  // assembled without wat2wasm's own check, refused by wasm2c's.
  std::string wat = "(module " + circom_like_exports() + ")";
  const std::string version = R"((func (export "getVersion") (result i32) i32.const 2))";
  wat.replace(wat.find(version), version.size(), R"((func (export "getVersion") (result i32)))");
  auto s = compile(assemble(wat, "--no-check"));
  EXPECT_EQ(s.code(), errc::invalid_argument) << s.message();
  EXPECT_TRUE(s.message().starts_with("module.wasm: wasm2c failed")) << s.message();
}

TEST_F(CircomWasmInterface, circoms_witness_code_passes) {
  for (const char* curve : {"bn128", "bls12381"})
    for (const char* circuit : {"matrix", "range_check", "logs"}) {
      const std::string wasm = data_dir + "/" + curve + "/" + circuit + ".wasm";
      const auto s = check_circom_wasm_interface(read_bytes(wasm), wasm);
      EXPECT_TRUE(s.is_ok()) << s.message();
    }
}

}  // namespace
}  // namespace cuzk::witness
