// SPDX-License-Identifier: MIT OR Apache-2.0
// Re-registering a circuit id: the same key is a no-op, another key is refused unless replaced,
// and a replacement is refused while jobs of the id wait (docs/HARDENING.md, finding 5: queued jobs
// ran under the new key and their proofs failed the old key's verification).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "engine/engine_test_util.hpp"

namespace cuzk::engine {
namespace {

using namespace std::chrono_literals;
using namespace cuzk::engine::test;

gated_engine make(bool gate_open) {
  engine_options o;
  o.spool_dir = temp_dir("register-spool");
  return gated_engine(std::move(o), std::make_unique<gated_backend>(0ms, gate_open));
}

// `message` with the first `path` in it written "P" (built anew: GCC 12 warns, -Wrestrict, on a
// string::replace with a literal here).
std::string masked(const std::string& message, const std::string& path) {
  const auto at = message.find(path);
  if (at == std::string::npos) return message;
  return message.substr(0, at) + "P" + message.substr(at + path.size());
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

// docs/HARDENING.md, finding 19: a client's zkey and wasm paths were opened anywhere with the
// daemon's rights, and the error quoted the file's first bytes and told a missing file from one
// that exists. Now only regular files under key_dirs, one message for every refusal, no bytes.
TEST(engine_register, a_clients_key_paths_are_confined_to_key_dirs_and_refused_alike) {
  const std::string keys = temp_dir("key-dirs"), outside = temp_dir("key-dirs-outside");
  std::filesystem::copy_file(small_zkey, keys + "/k.zkey");
  std::filesystem::copy_file(small_zkey, outside + "/k.zkey");
  {
    std::ofstream(outside + "/secret") << "SECRET bytes";
    std::ofstream(keys + "/secret") << "SECRET bytes";
  }
  std::filesystem::create_symlink(outside + "/k.zkey", keys + "/link.zkey");
  std::filesystem::create_directory(keys + "/dir.zkey");
  auto start = [&](std::vector<std::string> dirs) {
    engine_options o;
    o.verify_proofs = false;
    o.spool_dir = temp_dir("key-dirs-spool");
    o.key_dirs = std::move(dirs);
    engine_parts parts;
    parts.backend = std::make_unique<gated_backend>();
    auto e = engine::create(std::move(o), std::move(parts));
    EXPECT_TRUE(e.is_ok()) << e.error().to_string();
    return std::move(e).value();
  };
  constexpr auto client = key_origin::client, owner = key_origin::local_owner;
  {
    // Without key_dirs: any path of the daemon's own user on its socket (the zero-config flow), none
    // of another client's, refused alike whether the file exists or not.
    auto off = start({});
    EXPECT_TRUE(off->register_circuit("o", outside + "/k.zkey", priority::normal, key_change::refuse, "", owner).is_ok());
    std::string refusal;
    for (const std::string& p : {keys + "/k.zkey", outside + "/missing.zkey", outside + "/secret"}) {
      const status s = off->register_circuit("a", p, priority::normal, key_change::refuse, "", client);
      EXPECT_EQ(s.code(), errc::failed_precondition) << s.to_string();
      const std::string m = masked(s.message(), p);
      if (refusal.empty()) refusal = m;
      EXPECT_EQ(m, refusal) << s.to_string();
      EXPECT_EQ(m.find("SECRET"), std::string::npos);
    }
    EXPECT_NE(refusal.find("key_dirs is empty"), std::string::npos) << refusal;
    // The config's keys (the operator's) are registered wherever they are.
    EXPECT_TRUE(off->register_circuit("b", outside + "/k.zkey").is_ok());
  }
  auto e = start({keys});
  EXPECT_TRUE(e->register_circuit("a", keys + "/k.zkey", priority::normal, key_change::refuse, "", client).is_ok());
  EXPECT_TRUE(e->register_circuit("a2", keys + "/k.zkey", priority::normal, key_change::refuse, "", owner).is_ok());
  std::string refusal;
  for (const std::string& p : {outside + "/k.zkey", outside + "/secret", outside + "/missing.zkey",
                               keys + "/missing.zkey", keys + "/link.zkey", keys + "/dir.zkey",
                               keys + "/../" + std::filesystem::path(outside).filename().string() + "/k.zkey"}) {
    // With key_dirs set, the daemon's own user is held to it too.
    for (const key_origin who : {client, owner}) {
      const status s = e->register_circuit("c", p, priority::normal, key_change::refuse, "", who);
      EXPECT_EQ(s.code(), errc::failed_precondition) << p << ": " << s.to_string();
      const std::string m = masked(s.message(), p);  // the same words for every refusal, whatever the path
      if (refusal.empty()) refusal = m;
      EXPECT_EQ(m, refusal) << s.to_string();
      EXPECT_EQ(m.find("SECRET"), std::string::npos);
    }
  }
  EXPECT_NE(refusal.find("key_dirs"), std::string::npos) << refusal;
  // A wasm path by the same rule.
  const status w = e->register_circuit("d", keys + "/k.zkey", priority::normal, key_change::refuse,
                                       outside + "/secret", client);
  EXPECT_EQ(w.code(), errc::failed_precondition) << w.to_string();
  EXPECT_NE(w.message().find("wasm path"), std::string::npos) << w.to_string();
  // A file under key_dirs that is not a zkey: named, none of its bytes quoted.
  const status bad = e->register_circuit("e", keys + "/secret", priority::normal, key_change::refuse, "", client);
  EXPECT_EQ(bad.code(), errc::format_error) << bad.to_string();
  EXPECT_EQ(bad.message().find("SECR"), std::string::npos) << bad.to_string();
  EXPECT_NE(bad.message().find("not a Groth16 zkey"), std::string::npos) << bad.to_string();
}

}  // namespace
}  // namespace cuzk::engine
