// SPDX-License-Identifier: MIT OR Apache-2.0
// Test helpers for the engine: a prover backend that only waits (so scheduling can be observed
// without proving), the fixture files, and temporary directories. Tests only: the engine itself
// always runs a real prover.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

#include "engine/engine.hpp"
#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/verification_key.hpp"
#include "groth16/verifier.hpp"

namespace cuzk::engine::test {

// The fixtures: CUZK_TEST_DATA_DIR from the environment (binaries copied to another machine run
// where the compiled-in path does not exist), else the build's.
inline std::string test_data_dir() {
  const char* env = std::getenv("CUZK_TEST_DATA_DIR");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string(CUZK_TEST_DATA_DIR);
}
inline const std::string data_dir = test_data_dir();
inline const std::string small_zkey = data_dir + "/snarkjs/bn128/circuit.zkey";
inline const std::string small_wtns = data_dir + "/snarkjs/bn128/circuit.wtns";
inline const std::string poseidon_zkey = data_dir + "/snarkjs/bn128/poseidon/circuit.zkey";
inline const std::string poseidon_wtns = data_dir + "/snarkjs/bn128/poseidon/circuit.wtns";
inline const std::string poseidon_vk = data_dir + "/snarkjs/bn128/poseidon/verification_key.json";
inline const std::string bls_zkey = data_dir + "/snarkjs/bls12381/circuit.zkey";
inline const std::string bls_wtns = data_dir + "/snarkjs/bls12381/circuit.wtns";
inline const std::string bls_vk = data_dir + "/snarkjs/bls12381/verification_key.json";

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

inline std::string temp_dir(const std::string& name) {
  auto d =
      std::filesystem::temp_directory_path() / ("cuzk-engine-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

// Waits at a gate (closed: every prove() blocks until open()), then sleeps `delay` and returns a
// fixed BN254 proof (the generators). Verification must be off with it.
class gated_backend final : public prover_backend {
 public:
  explicit gated_backend(std::chrono::milliseconds delay = std::chrono::milliseconds(0), bool open = true)
      : delay_(delay), open_(open) {}
  const char* name() const noexcept override { return "test"; }
  result<any_proof> prove(const prove_call&, const any_witness&, const cancel_token&,
                          prove_report& t) override {
    ++calls;
    {
      std::unique_lock lk(m_);
      cv_.wait(lk, [&] { return open_ || abort_; });
      if (abort_) return status(errc::internal, "test backend aborted");
    }
    std::this_thread::sleep_for(delay_);
    t.phases.total = std::chrono::duration<double>(delay_).count();
    return any_proof(formats::proof<bn254>{bn254_g1::generator, bn254_g2::generator, bn254_g1::generator});
  }
  void open() {
    std::lock_guard lk(m_);
    open_ = true;
    cv_.notify_all();
  }
  void close() {
    std::lock_guard lk(m_);
    open_ = false;
  }
  void abort() {
    std::lock_guard lk(m_);
    abort_ = true;
    cv_.notify_all();
  }
  // Spins until prove() has been entered n times.
  bool wait_calls(int n, std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (calls.load() < n)
      if (std::chrono::steady_clock::now() > until)
        return false;
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return true;
  }
  std::atomic<int> calls{0};

 private:
  std::chrono::milliseconds delay_;
  std::mutex m_;
  std::condition_variable cv_;
  bool open_;
  bool abort_ = false;
};

// An engine over a gated_backend, with that backend at hand to open, close and count calls
// through. Verification is off (the backend's proof is fixed); `o` is otherwise used as given, so
// the caller names the spool. Where the engine does not start the test fails and `eng` is empty.
struct gated_engine {
  std::unique_ptr<engine> eng;
  gated_backend* backend = nullptr;

  explicit gated_engine(engine_options o, std::unique_ptr<gated_backend> b,
                        std::shared_ptr<job_store> store = nullptr) {
    backend = b.get();
    o.verify_proofs = false;
    engine_parts parts;
    parts.backend = std::move(b);
    parts.store = std::move(store);
    auto e = engine::create(std::move(o), std::move(parts));
    EXPECT_TRUE(e.is_ok()) << e.error().to_string();
    if (e) eng = std::move(e).value();
  }
};

inline job_request request(const std::string& circuit, std::size_t partitions = 1,
                           std::optional<priority> prio = std::nullopt,
                           const std::string& wtns = small_wtns) {
  job_request r;
  r.circuit = circuit;
  r.prio = prio;
  for (std::size_t i = 0; i < partitions; ++i)
    r.partitions.push_back(witness_input::from_bytes(read_bytes(wtns)));
  return r;
}

// The multiplier fixture's witness (`wtns`, either curve) with d = 7 + k, so out = a b c + d =
// 172 + k: a valid witness whose public signals say which partition it was. Its nine values are
// [1, out, c, d, a, b, ab, abc, 1/a], little-endian at the end of the file.
inline std::vector<uint8_t> multiplier_witness(const std::string& wtns, unsigned k) {
  std::vector<uint8_t> bytes = read_bytes(wtns);
  const std::size_t values = bytes.size() - 9 * 32;
  auto add = [&](std::size_t index) {
    unsigned carry = k;
    for (std::size_t i = values + 32 * index; carry != 0; ++i) {
      carry += bytes[i];
      bytes[i] = static_cast<uint8_t>(carry);
      carry >>= 8;
    }
  };
  EXPECT_EQ(bytes[values + 32 * 1], 172);
  EXPECT_EQ(bytes[values + 32 * 3], 7);
  add(1);
  add(3);
  return bytes;
}
// Its public.json, as the engine writes it.
inline std::string multiplier_public(unsigned k) {
  return "[\n \"" + std::to_string(172 + k) + "\",\n \"5\",\n \"" + std::to_string(7 + k) + "\"\n]";
}

// A returned partition's proof verifies with the key at vk_path, and its public signals are the
// expected JSON text.
template <class C>
void expect_valid_proof(const partition_proof& p, const std::string& vk_path, const std::string& expected_public) {
  auto vk = formats::read_verification_key_json<C>(vk_path);
  ASSERT_TRUE(vk.is_ok()) << vk.error().to_string();
  auto proof = formats::proof_from_json<C>(p.proof_json, "proof.json");
  ASSERT_TRUE(proof.is_ok()) << proof.error().to_string();
  auto pub = formats::public_from_json<C>(p.public_json, "public.json");
  ASSERT_TRUE(pub.is_ok()) << pub.error().to_string();
  EXPECT_TRUE(groth16::verify<C>(*vk, *pub, *proof).is_ok());
  EXPECT_EQ(p.public_json, expected_public);
}

}  // namespace cuzk::engine::test
