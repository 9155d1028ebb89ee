// SPDX-License-Identifier: MIT OR Apache-2.0
// The native field arithmetic (native_field.hpp) held against the wasm's own: in one compiled
// generator, each replaced function of circom's wasm (Fr_add, Fr_sub, Fr_mul, Fr_neg, Fr_copy,
// Fr_toLongNormal) runs on the same operands as its stub, on fresh random values and the edges of both
// forms (short values at the 31-bit overflow, long values at 0, 1, (p-1)/2, p-1; plain and
// Montgomery; a result over an operand), and the two results must be the same value as the
// wasm's own Fr_toLongNormal reads them. Both curves.
#include "witness/native_field.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "witness/circom_wasm.hpp"
#include "witness/wasm_compiler.hpp"

namespace cuzk::witness {
namespace {

namespace fs = std::filesystem;

// The indices of the test hook's functions (generated_c.cpp, `replaced`), and Fr_toLongNormal.
enum op : uint32_t { add = 0, sub = 1, mul = 2, neg = 3, copy = 4, is_true = 5, long_normal = 6, to_long_normal = 100 };

struct compiled {
  void* handle = nullptr;
  void* (*create)() = nullptr;
  void (*configure)(void*, const native_field_ops*, const int*) = nullptr;
  int (*instantiate)(void*) = nullptr;
  void (*destroy)(void*) = nullptr;
  uint8_t* (*memory)(void*, uint64_t*) = nullptr;
  int (*field_op)(void*, uint32_t, int, uint32_t, uint32_t, uint32_t, uint32_t*) = nullptr;
};

template <class F>
class NativeField : public ::testing::Test {
 protected:
  using repr = typename F::repr;
  static constexpr uint32_t size = 8 + F::num_bytes;

  void SetUp() override {
    if (std::system("command -v wasm2c >/dev/null 2>&1") != 0) GTEST_FAIL() << "wasm2c not installed (apt-get install wabt)";
    const std::string curve = std::is_same_v<F, bn254::fr> ? "bn128" : "bls12381";
    const std::string wasm = CUZK_TEST_DATA_DIR "/witness/" + curve + "/matrix.wasm";
    std::ifstream in(wasm, std::ios::binary);
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
    auto lib = compile_witness_generator(bytes, wasm, cache_);
    ASSERT_TRUE(lib.is_ok()) << lib.error().message();
    c_.handle = dlopen(lib->library.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(c_.handle, nullptr) << dlerror();
    resolve("cuzk_witness_new", c_.create);
    resolve("cuzk_witness_configure", c_.configure);
    resolve("cuzk_witness_instantiate", c_.instantiate);
    resolve("cuzk_witness_delete", c_.destroy);
    resolve("cuzk_witness_test_memory", c_.memory);
    resolve("cuzk_witness_test_field_op", c_.field_op);
    w_ = c_.create();
    ASSERT_NE(w_, nullptr);
    std::vector<uint32_t> prime(2 * F::N);
    for (std::size_t i = 0; i < F::N; ++i) {
      prime[2 * i] = static_cast<uint32_t>(F::modulus.limb[i]);
      prime[2 * i + 1] = static_cast<uint32_t>(F::modulus.limb[i] >> 32);
    }
    native_ = native_field_for(prime);
    ASSERT_NE(native_, nullptr);
    c_.configure(w_, native_, nullptr);
    ASSERT_EQ(c_.instantiate(w_), 0);
    uint64_t mem_size = 0;
    c_.memory(w_, &mem_size);
    ASSERT_GT(mem_size, 16 * size);
    scratch_ = static_cast<uint32_t>(mem_size - 16 * size);  // past everything a fresh instance uses
  }
  void TearDown() override {
    if (w_) c_.destroy(w_);
    if (c_.handle) dlclose(c_.handle);
  }
  // One cache for the suite: each curve's circuit is compiled once.
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(cache_, ec);
  }

  template <class Fn>
  void resolve(const char* name, Fn& fn) {
    fn = reinterpret_cast<Fn>(dlsym(c_.handle, name));
    ASSERT_NE(fn, nullptr) << name;
  }

  // An operand: the form it is written in and its bytes.
  struct operand {
    std::string what;
    uint8_t bytes[size] = {};
  };

  static operand short_value(int32_t v) {
    operand o;
    o.what = "short " + std::to_string(v);
    std::memcpy(o.bytes, &v, 4);
    return o;
  }
  // A short value whose type also says Montgomery: what the wasm's own Fr_toMontgomery leaves on
  // a short operand, in place, inside its Fr_add and Fr_mul (the value is still the short one).
  static operand short_montgomery_value(int32_t v) {
    operand o = short_value(v);
    o.what = "short (Montgomery-tagged) " + std::to_string(v);
    const uint32_t type = 0x40000000u;
    std::memcpy(o.bytes + 4, &type, 4);
    const repr limbs = (v >= 0 ? F::from_uint(static_cast<uint64_t>(v)) : -F::from_uint(static_cast<uint64_t>(-int64_t{v}))).montgomery();
    std::memcpy(o.bytes + 8, limbs.limb, F::num_bytes);
    return o;
  }
  static operand long_value(const repr& v, bool montgomery) {
    operand o;
    o.what = std::string(montgomery ? "long Montgomery " : "long ") + F::from_canonical_unchecked(v).to_decimal();
    const uint32_t type = montgomery ? 0xC0000000u : 0x80000000u;
    std::memcpy(o.bytes + 4, &type, 4);
    const repr limbs = montgomery ? F::from_canonical_unchecked(v).montgomery() : v;
    std::memcpy(o.bytes + 8, limbs.limb, F::num_bytes);
    return o;
  }

  std::vector<operand> operands(std::mt19937_64& rng) {
    std::vector<operand> out;
    for (int32_t v : {0, 1, -1, 2, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, 1 << 30, -(1 << 30), 46341, -46341})
      out.push_back(short_value(v));
    for (int i = 0; i < 4; ++i) out.push_back(short_value(static_cast<int32_t>(rng())));
    for (int32_t v : {0, -1, INT32_MAX, INT32_MIN}) out.push_back(short_montgomery_value(v));
    std::vector<repr> longs = {repr{}, repr::from_u64(1), F::half_minus, ff::mont::sub_one(F::modulus),
                               ff::mont::add_one(F::half_minus), repr::from_u64(0x7fffffff), repr::from_u64(0x80000000u)};
    for (int i = 0; i < 6; ++i) longs.push_back(random_below_p(rng));
    for (const repr& v : longs) {
      out.push_back(long_value(v, false));
      out.push_back(long_value(v, true));
    }
    return out;
  }

  static repr random_below_p(std::mt19937_64& rng) {
    for (;;) {
      repr r;
      for (auto& l : r.limb) l = rng();
      r.limb[F::N - 1] &= (uint64_t{1} << (F::bits - 64 * (F::N - 1))) - 1;
      if (r < F::modulus) return r;
    }
  }

  uint8_t* at(uint32_t address) {
    uint64_t n = 0;
    return c_.memory(w_, &n) + address;
  }

  // Runs `o` (own != 0: the wasm's own function) with its result at `r`; for Fr_isTrue its answer.
  uint32_t run(op o, int own, uint32_t r, uint32_t a, uint32_t b) {
    uint32_t result = 0;
    EXPECT_EQ(c_.field_op(w_, o, own, r, a, b, &result), 0) << "op " << o;
    return result;
  }

  // The value at `address` as n64 plain limbs, read through the wasm's own Fr_toLongNormal.
  std::vector<uint8_t> value_at(uint32_t address) {
    run(to_long_normal, 1, 0, address, 0);
    uint32_t type;
    std::memcpy(&type, at(address) + 4, 4);
    EXPECT_EQ(type & 0x80000000u, 0x80000000u);
    return {at(address) + 8, at(address) + size};
  }

  // One operation on (x, y) by the wasm and by the stub; the same value, or the same answer.
  void check(op o, const operand& x, const operand& y, bool result_over_x) {
    const uint32_t a = scratch_, b = scratch_ + size, r_own = scratch_ + 2 * size, r_native = scratch_ + 3 * size;
    const bool in_place = result_over_x || o == long_normal;  // Fr_toLongNormal changes its operand
    const auto place = [&] {
      std::memcpy(at(a), x.bytes, size);
      std::memcpy(at(b), y.bytes, size);
    };
    place();
    const uint32_t own_answer = run(o, 1, in_place ? a : r_own, a, b);
    if (in_place) std::memcpy(at(r_own), at(a), size);
    place();
    const uint32_t native_answer = run(o, 0, in_place ? a : r_native, a, b);
    if (in_place) std::memcpy(at(r_native), at(a), size);
    const std::string what = "op " + std::to_string(o) + " on " + x.what + ", " + y.what + (result_over_x ? " (result over a)" : "");
    if (o == is_true) {
      EXPECT_EQ(native_answer, own_answer) << what;
      return;
    }
    EXPECT_EQ(value_at(r_native), value_at(r_own)) << what;
  }

  compiled c_;
  void* w_ = nullptr;
  const native_field_ops* native_ = nullptr;
  static inline const std::string cache_ =
      (fs::temp_directory_path() / ("cuzk-native-field-test-" + std::to_string(::getpid()))).string();
  uint32_t scratch_ = 0;
};

using fields = ::testing::Types<bn254::fr, bls12_381::fr>;
TYPED_TEST_SUITE(NativeField, fields);

TYPED_TEST(NativeField, EveryFormAndEdgeGivesTheWasmsValue) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));  // to run a failure again
  std::mt19937_64 rng(seed);
  const auto xs = this->operands(rng);
  for (const auto& x : xs) {
    for (op o : {neg, copy, long_normal}) {
      this->check(o, x, x, false);
      this->check(o, x, x, true);
    }
    for (const auto& y : xs) {
      for (op o : {add, sub, mul}) {
        this->check(o, x, y, false);
        this->check(o, x, y, true);
      }
    }
  }
}

TYPED_TEST(NativeField, NoNativeFieldForOtherPrimes) {
  const std::vector<uint32_t> goldilocks = {0x00000001u, 0xffffffffu};
  EXPECT_EQ(native_field_for(goldilocks), nullptr);
  std::vector<uint32_t> almost(2 * TypeParam::N, 0xffffffffu);
  EXPECT_EQ(native_field_for(almost), nullptr);
}

TYPED_TEST(NativeField, AnElementOutsideTheMemoryTraps) {
  uint64_t mem_size = 0;
  this->c_.memory(this->w_, &mem_size);
  const auto past = static_cast<uint32_t>(mem_size - 8);  // its limbs lie past the end
  uint32_t result = 0;
  for (op o : {add, sub, mul, neg, copy, long_normal}) {
    if (o != long_normal) {  // which works on its operand alone
      EXPECT_EQ(this->c_.field_op(this->w_, o, 0, past, this->scratch_, this->scratch_, &result), -1) << "op " << o;
    }
    EXPECT_EQ(this->c_.field_op(this->w_, o, 0, this->scratch_, past, past, &result), -1) << "op " << o;
  }
}

}  // namespace
}  // namespace cuzk::witness
