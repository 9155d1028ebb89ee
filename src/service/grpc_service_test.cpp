// SPDX-License-Identifier: MIT OR Apache-2.0
// The wire <-> engine conversions of wire.hpp: every engine value goes to the proto value of the
// same name (checked against the names protoc generates, independently of the switches), comes
// back unchanged, and a wire number the proto does not define maps to nothing; a submit request
// becomes the engine's job request, its inline witnesses lent rather than copied.
#include "service/wire.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <limits>
#include <string>

namespace cuzk::service {
namespace {

namespace v1 = cuzk::v1;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TEST(wire_enums, every_priority_travels_under_its_own_name_and_back) {
  for (int i = 0; i < engine::priority_count; ++i) {
    const auto p = static_cast<engine::priority>(i);
    const v1::Priority w = to_wire(p);
    EXPECT_EQ(v1::Priority_Name(w), engine::priority_name(p));
    ASSERT_TRUE(from_wire(w).has_value()) << engine::priority_name(p);
    EXPECT_EQ(*from_wire(w), p);
    EXPECT_EQ(from_wire(w, engine::priority::low == p ? engine::priority::high : engine::priority::low), p);
  }
}

TEST(wire_enums, unspecified_and_unknown_priorities_map_to_nothing_or_the_fallback) {
  const auto unknown = static_cast<v1::Priority>(v1::Priority_MAX + 1);  // a newer peer's value
  for (v1::Priority w : {v1::PRIORITY_UNSPECIFIED, unknown}) {
    EXPECT_FALSE(from_wire(w).has_value()) << static_cast<int>(w);
    EXPECT_EQ(from_wire(w, engine::priority::high), engine::priority::high) << static_cast<int>(w);
  }
}

TEST(wire_enums, every_job_state_travels_under_its_own_name_and_back) {
  using engine::job_state;
  for (job_state s : {job_state::queued, job_state::loading_key, job_state::synthesizing, job_state::proving,
                      job_state::verifying, job_state::done, job_state::failed, job_state::cancelled}) {
    const v1::JobState w = to_wire(s);
    EXPECT_EQ(lower(v1::JobState_Name(w)), engine::job_state_name(s));
    ASSERT_TRUE(from_wire(w).has_value()) << engine::job_state_name(s);
    EXPECT_EQ(*from_wire(w), s);
  }
}

TEST(wire_enums, unspecified_and_unknown_job_states_map_to_nothing) {
  EXPECT_FALSE(from_wire(v1::JOB_STATE_UNSPECIFIED).has_value());
  EXPECT_FALSE(from_wire(static_cast<v1::JobState>(v1::JobState_MAX + 1)).has_value());
}

// fuzz/submit_request_fuzz.cpp's input: circuit "multiplier((((((" and deadline_unix_ms
// 4400782320724952, past the year 2262, whose conversion to the engine's clock overflowed (undefined
// behaviour) and came out in the past. It saturates at the clock's end now.
TEST(wire_requests, a_deadline_past_the_clock_range_saturates) {
  const std::string bytes = "\x0a\x10multiplier((((((\x28\xd8\xd7\xd7\xd7\xcf\xcf\xe8\x07";
  v1::SubmitProofRequest wire;
  ASSERT_TRUE(wire.ParseFromString(bytes));
  EXPECT_EQ(wire.deadline_unix_ms(), 4'400'782'320'724'952);
  const engine::job_request r = to_job_request(wire);
  EXPECT_EQ(r.circuit, "multiplier((((((");
  ASSERT_TRUE(r.deadline.has_value());
  EXPECT_EQ(*r.deadline, engine::from_unix_ms(std::numeric_limits<int64_t>::max()));
  EXPECT_EQ(engine::to_unix_ms(*r.deadline),
            std::chrono::duration_cast<std::chrono::milliseconds>(engine::wall_time::duration::max()).count());
  EXPECT_TRUE(r.partitions.empty());
  EXPECT_FALSE(r.prio.has_value());
}

// docs/HARDENING.md, finding 14: an inline witness reached the engine as a copy of the request's
// bytes, one more witness-sized buffer per request (200 MB for a 200 MB witness). The engine's
// request now points into the gRPC message, which outlives submit().
TEST(wire_requests, an_inline_witness_is_lent_from_the_request_not_copied) {
  v1::SubmitProofRequest wire;
  wire.set_circuit("c");
  wire.add_partitions()->set_wtns(std::string(1 << 20, 'w'));
  wire.add_partitions()->set_path("/srv/witnesses/w.wtns");
  const engine::job_request r = to_job_request(wire);
  ASSERT_EQ(r.partitions.size(), 2u);
  const auto bytes = r.partitions[0].inline_bytes();
  EXPECT_EQ(static_cast<const void*>(bytes.data()), static_cast<const void*>(wire.partitions(0).wtns().data()));
  EXPECT_EQ(bytes.size(), std::size_t{1} << 20);
  EXPECT_TRUE(r.partitions[0].owned.empty());
  EXPECT_TRUE(r.partitions[1].inline_bytes().empty());
  EXPECT_EQ(r.partitions[1].path, "/srv/witnesses/w.wtns");
}

// Input JSON is lent the same way, marked as such for the engine.
TEST(wire_requests, input_json_is_lent_and_marked) {
  v1::SubmitProofRequest wire;
  wire.set_circuit("c");
  wire.add_partitions()->set_input_json(R"({"a": "3"})");
  wire.add_partitions()->set_wtns("w");
  const engine::job_request r = to_job_request(wire);
  ASSERT_EQ(r.partitions.size(), 2u);
  EXPECT_TRUE(r.partitions[0].input_json);
  EXPECT_EQ(static_cast<const void*>(r.partitions[0].inline_bytes().data()),
            static_cast<const void*>(wire.partitions(0).input_json().data()));
  EXPECT_EQ(r.partitions[0].inline_bytes().size(), wire.partitions(0).input_json().size());
  EXPECT_FALSE(r.partitions[1].input_json);
}

// Every phase the engine times reaches the Timings message under its own name (found through the
// message's descriptor, not the conversion's code), so a phase added to job.hpp without its field
// fails here.
TEST(wire_results, every_phase_travels_in_the_timings_field_of_its_name) {
  engine::job_result r;
  for (int p = 0; p < engine::phase_count; ++p) r.times.seconds[p] = 0.5 + p;
  v1::ProofResult out;
  to_wire(r, &out);
  const auto& t = out.timings();
  const auto* desc = t.GetDescriptor();
  for (int p = 0; p < engine::phase_count; ++p) {
    const char* name = engine::phase_name(engine::phase(p));
    const auto* field = desc->FindFieldByName(name);
    ASSERT_NE(field, nullptr) << name << " is not a field of Timings";
    EXPECT_DOUBLE_EQ(t.GetReflection()->GetDouble(t, field), 0.5 + p) << name;
  }
  EXPECT_DOUBLE_EQ(t.witness(), 0.5 + static_cast<int>(engine::phase::witness));
}

}  // namespace
}  // namespace cuzk::service
