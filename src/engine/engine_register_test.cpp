// SPDX-License-Identifier: MIT OR Apache-2.0
// Re-registering a circuit id: the same key is a no-op, another key is refused unless replaced,
// and a replacement is refused while jobs of the id wait (docs/HARDENING.md, finding 5: queued jobs
// ran under the new key and their proofs failed the old key's verification).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "engine/engine.hpp"
#include "engine/engine_test_util.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using namespace cuzk::engine::test;

struct harness {
  std::unique_ptr<engine> eng;
  gated_backend* backend = nullptr;
};

harness make(bool gate_open) {
  harness h;
  auto b = std::make_unique<gated_backend>(0ms, gate_open);
  h.backend = b.get();
  engine_options o;
  o.verify_proofs = false;
  o.spool_dir = temp_dir("register-spool");
  engine_parts parts;
  parts.backend = std::move(b);
  auto e = engine::create(std::move(o), std::move(parts));
  EXPECT_TRUE(e.is_ok()) << e.error().to_string();
  h.eng = std::move(e).value();
  return h;
}

std::string path_of(const engine& e, const std::string& id) {
  for (const auto& c : e.list_circuits())
    if (c.id == id) return c.zkey_path;
  return "";
}

TEST(engine_register, the_same_key_again_is_a_no_op_success) {
  auto h = make(true);
  ASSERT_TRUE(h.eng->register_circuit("m", small_zkey).is_ok());
  EXPECT_TRUE(h.eng->register_circuit("m", small_zkey).is_ok());
  EXPECT_TRUE(h.eng->register_circuit("m", small_zkey, priority::high).is_ok());
  // A copy of the file is the same key (the same verification key), so no replace is needed.
  const std::string copy = temp_dir("register-copy") + "/copy.zkey";
  std::filesystem::copy_file(small_zkey, copy);
  EXPECT_TRUE(h.eng->register_circuit("m", copy).is_ok());
  EXPECT_EQ(path_of(*h.eng, "m"), copy);
}

TEST(engine_register, another_key_for_a_registered_id_is_refused_unless_replaced) {
  auto h = make(true);
  ASSERT_TRUE(h.eng->register_circuit("m", small_zkey).is_ok());
  const status st = h.eng->register_circuit("m", poseidon_zkey);
  EXPECT_EQ(st.code(), errc::already_exists) << st.to_string();
  EXPECT_NE(st.message().find("circuit m"), std::string::npos) << st.to_string();
  EXPECT_NE(st.message().find("replace"), std::string::npos) << st.to_string();
  EXPECT_EQ(path_of(*h.eng, "m"), small_zkey);
  EXPECT_TRUE(h.eng->register_circuit("m", poseidon_zkey, priority::normal, key_change::replace).is_ok());
  EXPECT_EQ(path_of(*h.eng, "m"), poseidon_zkey);
}

// register m A.zkey; submit; register m B.zkey (the finding's reproduction).
TEST(engine_register, a_key_is_not_replaced_while_jobs_of_its_id_wait) {
  auto h = make(false);
  ASSERT_TRUE(h.eng->register_circuit("m", small_zkey).is_ok());
  auto running = h.eng->submit(request("m"));
  ASSERT_TRUE(running.is_ok()) << running.error().to_string();
  ASSERT_TRUE(h.backend->wait_calls(1));
  auto queued = h.eng->submit(request("m"));
  ASSERT_TRUE(queued.is_ok()) << queued.error().to_string();

  EXPECT_EQ(h.eng->register_circuit("m", poseidon_zkey).code(), errc::already_exists);
  const status st = h.eng->register_circuit("m", poseidon_zkey, priority::normal, key_change::replace);
  EXPECT_EQ(st.code(), errc::failed_precondition) << st.to_string();
  EXPECT_NE(st.message().find("circuit m"), std::string::npos) << st.to_string();
  EXPECT_NE(st.message().find("2 job(s)"), std::string::npos) << st.to_string();
  EXPECT_EQ(path_of(*h.eng, "m"), small_zkey);
  // The same key stays a success while they wait.
  EXPECT_TRUE(h.eng->register_circuit("m", small_zkey).is_ok());

  h.backend->open();
  for (job_id id : {*running, *queued}) {
    auto r = h.eng->await(id, 20s);
    ASSERT_TRUE(r.is_ok()) << r.error().to_string();
    EXPECT_EQ(r->state, job_state::done) << r->error.to_string();
  }
  // The worker lets go of the key's lease just after the last job ends, so the replacement may be
  // refused ("in use") for a moment.
  status replaced;
  for (int i = 0; i < 500; ++i) {
    replaced = h.eng->register_circuit("m", poseidon_zkey, priority::normal, key_change::replace);
    if (replaced.is_ok()) break;
    EXPECT_EQ(replaced.code(), errc::failed_precondition) << replaced.to_string();
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(replaced.is_ok()) << replaced.to_string();
  EXPECT_EQ(path_of(*h.eng, "m"), poseidon_zkey);
}

}  // namespace
}  // namespace cuzk::engine
