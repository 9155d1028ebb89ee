// SPDX-License-Identifier: MIT OR Apache-2.0
// The cut of wasm2c's C into translation units (c_units.hpp), on text of wasm2c's shape: what moves,
// what stays with the module's state, and when there is one unit. That the cut C compiles and
// computes the same witness is circom_wasm_test.cpp's (a real circuit, compiled in four units).
#include "witness/c_units.hpp"

#include <gtest/gtest.h>

#include <string>

namespace cuzk::witness {
namespace {

// A function definition of wasm2c's shape, padded to about `bytes` with statements.
std::string function(const std::string& name, const std::string& statement, std::size_t bytes) {
  std::string f = "static u32 w2c_" + name + "(Z_circuit_instance_t* instance, u32 w2c_p0) {\n";
  while (f.size() < bytes) f += "  " + statement + "\n";
  return f + "  return w2c_p0;\n}\n";
}

struct circuit_c {
  std::string prelude = "#include \"circuit.h\"\n#define TRAP(x) (wasm_rt_trap(WASM_RT_TRAP_##x), 0)\n"
                        "static inline u32 helper(u32 x) {\n  return x;\n}\n";
  std::string state = "static bool s_module_initialized = false;\n\nstatic u32 func_types[3];\n\n"
                      "static void init_func_types(void) {\n  func_types[0] = 1;\n}\n\n";
  std::string declarations;
  std::string segments = "#define data_segment_data_w2c_d0 (cuzk_data_blob + 0u)\n";
  std::string definitions;
  std::string exports = "u32 Z_circuitZ_getVersion(Z_circuit_instance_t* instance) {\n  return w2c_a(instance, 2);\n}\n";

  void add(const std::string& name, const std::string& statement, std::size_t bytes, bool declare = true) {
    if (declare) declarations += "static u32 w2c_" + name + "(Z_circuit_instance_t*, u32);\n";
    definitions += function(name, statement, bytes);
  }
  std::string text() const { return prelude + state + declarations + "\n" + segments + definitions + exports; }
};

// "f<i>" (gcc 12 warns, wrongly, of an overlapping copy in f_name(i)).
std::string f_name(int i) {
  std::string n = "f";
  n += std::to_string(i);
  return n;
}

// How many units hold the definition of `name`.
int defined_in(const std::vector<std::string>& units, const std::string& name, std::size_t* where = nullptr) {
  int n = 0;
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (units[u].find("u32 w2c_" + name + "(Z_circuit_instance_t* instance") != std::string::npos) {
      ++n;
      if (where) *where = u;
    }
  }
  return n;
}

TEST(CUnits, DefinitionsAreSharedOutOnceEachWithThePreludeAndEveryDeclaration) {
  circuit_c c;
  for (int i = 0; i < 12; ++i) c.add(f_name(i), "w2c_p0 = helper(w2c_p0) + w2c_a(instance, w2c_p0);", 4000);
  c.add("a", "w2c_p0 += 1u;", 4000);
  const std::string text = c.text();
  const auto units = split_into_units(text, 3, 1000);
  ASSERT_EQ(units.size(), 3u);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(defined_in(units, f_name(i)), 1) << i;
  EXPECT_EQ(defined_in(units, "a"), 1);
  // The first unit keeps the state, the segments and the exports; the others read the prelude,
  // share func_types and declare every function, none of them static.
  EXPECT_NE(units[0].find("\nu32 func_types[3];\n"), std::string::npos);
  EXPECT_NE(units[0].find("s_module_initialized"), std::string::npos);
  EXPECT_NE(units[0].find("Z_circuitZ_getVersion"), std::string::npos);
  for (std::size_t u = 1; u < units.size(); ++u) {
    EXPECT_TRUE(units[u].starts_with(c.prelude)) << u;
    EXPECT_NE(units[u].find("extern u32 func_types[3];\n"), std::string::npos) << u;
    EXPECT_NE(units[u].find("\nu32 w2c_f11(Z_circuit_instance_t*, u32);\n"), std::string::npos) << u;
    EXPECT_EQ(units[u].find("s_module_initialized"), std::string::npos) << u;
    EXPECT_EQ(units[u].find("data_segment"), std::string::npos) << u;
    EXPECT_EQ(units[u].find("Z_circuitZ_"), std::string::npos) << u;
  }
  for (const auto& u : units) EXPECT_EQ(u.find("static u32 w2c_"), std::string::npos);
  // Roughly equal parts: none is more than twice another.
  std::size_t lo = text.size(), hi = 0;
  for (const auto& u : units) lo = std::min(lo, u.size()), hi = std::max(hi, u.size());
  EXPECT_LE(hi, 2 * lo) << lo << " " << hi;
}

TEST(CUnits, WhatOnlyTheFirstUnitHasKeepsAFunctionThere) {
  circuit_c c;
  for (int i = 0; i < 8; ++i) c.add(f_name(i), "w2c_p0 += 3u;", 4000);
  c.add("reads_data", "memory_init(&instance->w2c_memory, 0, data_segment_data_w2c_d0, 1);", 4000);
  c.add("calls_a_body", "w2c_Fr_add_body(instance, w2c_p0, w2c_p0, w2c_p0);", 4000);
  c.add("calls_undeclared", "w2c_p0 = w2c_undeclared(instance, w2c_p0);", 4000);
  c.add("undeclared", "w2c_p0 += 5u;", 4000, false);
  c.add("a", "w2c_p0 += 1u;", 100);
  const auto units = split_into_units(c.text(), 4, 1000);
  ASSERT_GE(units.size(), 2u);
  for (const char* stays : {"reads_data", "calls_a_body", "calls_undeclared"}) {
    std::size_t where = 99;
    EXPECT_EQ(defined_in(units, stays, &where), 1) << stays;
    EXPECT_EQ(where, 0u) << stays;
  }
  // A function without a declaration stays static, in the first unit.
  EXPECT_NE(units[0].find("static u32 w2c_undeclared(Z_circuit_instance_t* instance"), std::string::npos);
}

TEST(CUnits, SmallTextOrAnotherShapeIsOneUnitUnchanged) {
  circuit_c c;
  for (int i = 0; i < 8; ++i) c.add(f_name(i), "w2c_p0 += 3u;", 4000);
  const std::string text = c.text();
  EXPECT_EQ(split_into_units(text, 1, 1000), std::vector<std::string>{text});
  EXPECT_EQ(split_into_units(text, 8, text.size()), std::vector<std::string>{text}) << "under two units' worth";
  circuit_c no_state = c;
  no_state.state = "static void init_func_types(void) {\n}\n";
  EXPECT_EQ(split_into_units(no_state.text(), 4, 1000), std::vector<std::string>{no_state.text()});
  circuit_c open_body = c;
  open_body.definitions += "static u32 w2c_open(Z_circuit_instance_t* instance, u32 w2c_p0) {\n  return 0;\n";
  open_body.exports.clear();
  EXPECT_EQ(split_into_units(open_body.text(), 4, 1000), std::vector<std::string>{open_body.text()});
}

}  // namespace
}  // namespace cuzk::witness
