// SPDX-License-Identifier: MIT OR Apache-2.0
// The wire's messages and enums to and from the engine's types (see wire.hpp).
#include "service/wire.hpp"

namespace cuzk::service {

namespace v1 = cuzk::v1;

std::optional<engine::priority> from_wire(v1::Priority p) noexcept {
  switch (p) {
    case v1::LOW:
      return engine::priority::low;
    case v1::NORMAL:
      return engine::priority::normal;
    case v1::HIGH:
      return engine::priority::high;
    case v1::CRITICAL:
      return engine::priority::critical;
    default:
      return std::nullopt;
  }
}

engine::priority from_wire(v1::Priority p, engine::priority fallback) noexcept {
  return from_wire(p).value_or(fallback);
}

v1::Priority to_wire(engine::priority p) noexcept {
  switch (p) {
    case engine::priority::low:
      return v1::LOW;
    case engine::priority::normal:
      return v1::NORMAL;
    case engine::priority::high:
      return v1::HIGH;
    case engine::priority::critical:
      return v1::CRITICAL;
  }
  return v1::PRIORITY_UNSPECIFIED;
}

std::optional<engine::job_state> from_wire(v1::JobState s) noexcept {
  switch (s) {
    case v1::QUEUED:
      return engine::job_state::queued;
    case v1::LOADING_KEY:
      return engine::job_state::loading_key;
    case v1::SYNTHESIZING:
      return engine::job_state::synthesizing;
    case v1::PROVING:
      return engine::job_state::proving;
    case v1::VERIFYING:
      return engine::job_state::verifying;
    case v1::DONE:
      return engine::job_state::done;
    case v1::FAILED:
      return engine::job_state::failed;
    case v1::CANCELLED:
      return engine::job_state::cancelled;
    default:
      return std::nullopt;
  }
}

v1::JobState to_wire(engine::job_state s) noexcept {
  switch (s) {
    case engine::job_state::queued:
      return v1::QUEUED;
    case engine::job_state::loading_key:
      return v1::LOADING_KEY;
    case engine::job_state::synthesizing:
      return v1::SYNTHESIZING;
    case engine::job_state::proving:
      return v1::PROVING;
    case engine::job_state::verifying:
      return v1::VERIFYING;
    case engine::job_state::done:
      return v1::DONE;
    case engine::job_state::failed:
      return v1::FAILED;
    case engine::job_state::cancelled:
      return v1::CANCELLED;
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

void to_wire(const engine::job_result& r, v1::ProofResult* out) {
  out->set_job_id(r.id);
  out->set_request_id(r.request_id);
  out->set_circuit(r.circuit);
  out->set_priority(to_wire(r.prio));
  out->set_state(to_wire(r.state));
  out->set_partitions(r.partitions);
  if (!r.error.is_ok()) out->set_error(r.error.to_string());
  for (const auto& p : r.proofs) {
    auto* pp = out->add_proofs();
    pp->set_proof_json(p.proof_json);
    pp->set_public_json(p.public_json);
  }
  auto* t = out->mutable_timings();
  using engine::phase;
  t->set_queue_wait(r.times[phase::queue_wait]);
  t->set_key_load(r.times[phase::key_load]);
  t->set_witness(r.times[phase::witness]);
  t->set_synthesis(r.times[phase::synthesis]);
  t->set_prove(r.times[phase::prove]);
  t->set_verify(r.times[phase::verify]);
  t->set_total(r.times[phase::total]);
  t->set_h2d(r.times[phase::h2d]);
  t->set_h2d_gb_per_s(r.times[phase::h2d] > 0 ? r.h2d_bytes / r.times[phase::h2d] / 1e9 : 0);
  t->set_ntt(r.times[phase::ntt]);
  t->set_msm_a(r.times[phase::msm_a]);
  t->set_msm_b1(r.times[phase::msm_b1]);
  t->set_msm_b2(r.times[phase::msm_b2]);
  t->set_msm_c(r.times[phase::msm_c]);
  t->set_msm_h(r.times[phase::msm_h]);
  t->set_assembly(r.times[phase::assembly]);
  t->set_gpu_wait(r.times[phase::gpu_wait]);
  t->set_gpu_busy(r.times[phase::gpu_busy]);
  t->set_reservation_wait(r.times[phase::reservation_wait]);
  out->set_ran_on(r.ran_on);
  out->set_deadline_missed(r.deadline_missed);
  out->set_attempts(r.attempts);
  out->set_submitted_unix_ms(engine::to_unix_ms(r.submitted_at));
  out->set_finished_unix_ms(r.finished_at ? engine::to_unix_ms(*r.finished_at) : 0);
}

engine::job_request to_job_request(const v1::SubmitProofRequest& req) {
  engine::job_request r;
  r.circuit = req.circuit();
  if (req.priority() != v1::PRIORITY_UNSPECIFIED)
    r.prio = from_wire(req.priority(), engine::priority::normal);
  r.request_id = req.request_id();
  if (req.deadline_unix_ms() > 0) r.deadline = engine::from_unix_ms(req.deadline_unix_ms());
  for (const auto& w : req.partitions()) {
    if (w.source_case() == v1::Witness::kWtns) {
      const std::string& b = w.wtns();
      r.partitions.push_back(
          engine::witness_input::borrow({reinterpret_cast<const uint8_t*>(b.data()), b.size()}));
    } else if (w.source_case() == v1::Witness::kInputJson) {
      r.partitions.push_back(engine::witness_input::borrow_input_json(w.input_json()));
    } else {
      r.partitions.push_back(engine::witness_input::from_path(w.path()));  // empty: the engine names it
    }
  }
  return r;
}

}  // namespace cuzk::service
