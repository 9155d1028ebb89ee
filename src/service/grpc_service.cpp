#include "service/grpc_service.hpp"

#include <algorithm>
#include <exception>
#include <new>

#include "formats/curve_id.hpp"

namespace cuzk::service {
namespace {

namespace v1 = cuzk::v1;

// Runs a handler body; whatever it throws becomes a gRPC status instead of reaching gRPC's thread.
template <class F>
grpc::Status guarded(F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return to_grpc(status(errc::resource_exhausted, "out of memory while handling the request"));
  } catch (const std::exception& e) {
    return to_grpc(status(errc::internal, e.what()));
  } catch (...) {
    return to_grpc(status(errc::internal, "an exception of unknown type"));
  }
}

// The engine names the tiers (its device slots among them); preloading to "cold" means nothing.
result<engine::tier_target> tier_from(const engine::engine& e, const std::string& s, engine::key_tier fallback,
                                      bool preload) {
  if (s.empty()) return engine::tier_target(fallback);
  auto t = e.parse_tier(s);
  if (t && preload && t->tier == engine::key_tier::cold)
    return status(errc::invalid_argument, "tier: expected warm, hot or a device to preload to, found \"cold\"");
  return t;
}

}  // namespace

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

grpc::Status grpc_service::RegisterCircuit(grpc::ServerContext*, const v1::RegisterCircuitRequest* req,
                                           v1::RegisterCircuitResponse*) {
  return guarded([&] {
    return to_grpc(e_.register_circuit(
        req->id(), req->zkey_path(), from_wire(req->default_priority(), engine::priority::normal),
        req->replace() ? engine::key_change::replace : engine::key_change::refuse));
  });
}

grpc::Status grpc_service::ListCircuits(grpc::ServerContext*, const v1::ListCircuitsRequest*,
                                        v1::ListCircuitsResponse* out) {
  return guarded([&] {
    for (const auto& c : e_.list_circuits()) {
      auto* w = out->add_circuits();
      w->set_id(c.id);
      w->set_zkey_path(c.zkey_path);
      w->set_default_priority(to_wire(c.default_priority));
      w->set_curve(formats::snarkjs_curve_name(c.key.curve));
      w->set_domain_size(c.key.domain_size);
      w->set_variables(c.key.n_vars);
      w->set_public_inputs(c.key.n_public);
      w->set_file_bytes(c.key.file_bytes);
    }
    return grpc::Status::OK;
  });
}

result<engine::job_id> grpc_service::submit(const v1::SubmitProofRequest& req) {
  engine::job_request r;
  r.circuit = req.circuit();
  if (req.priority() != v1::PRIORITY_UNSPECIFIED)
    r.prio = from_wire(req.priority(), engine::priority::normal);
  r.request_id = req.request_id();
  if (req.deadline_unix_ms() > 0) r.deadline = engine::from_unix_ms(req.deadline_unix_ms());
  for (const auto& w : req.partitions()) {
    if (w.source_case() == v1::Witness::kWtns)
      r.partitions.push_back(engine::witness_input::from_bytes({w.wtns().begin(), w.wtns().end()}));
    else
      r.partitions.push_back(engine::witness_input::from_path(w.path()));  // empty: the engine names it
  }
  return e_.submit(std::move(r));
}

grpc::Status grpc_service::await(grpc::ServerContext* ctx, engine::job_id id, uint64_t timeout_ms,
                                 v1::ProofResult* out) {
  using namespace std::chrono;
  constexpr milliseconds slice(200);
  // Saturated: milliseconds(2^64 - 1) is -1 ms in the signed count, a deadline already past (the
  // call returned at once). A century is forever for an await and far from steady_clock's limit.
  constexpr uint64_t max_timeout_ms = uint64_t{100} * 365 * 24 * 3600 * 1000;
  const auto until =
      steady_clock::now() + milliseconds(static_cast<int64_t>(std::min(timeout_ms, max_timeout_ms)));
  for (;;) {
    if (stopping_) return to_grpc(status(errc::unavailable, "daemon shutting down; await the job again"));
    if (ctx->IsCancelled()) return to_grpc(status(errc::cancelled, "the client went away"));
    auto wait = slice;
    if (timeout_ms > 0)
      wait = std::clamp(duration_cast<milliseconds>(until - steady_clock::now()), 1ms, slice);
    auto r = e_.await(id, wait);
    if (!r) return to_grpc(r.error());
    if (engine::is_terminal(r->state) || (timeout_ms > 0 && steady_clock::now() >= until)) {
      to_wire(*r, out);
      return grpc::Status::OK;
    }
  }
}

grpc::Status grpc_service::SubmitProof(grpc::ServerContext*, const v1::SubmitProofRequest* req,
                                       v1::SubmitProofResponse* out) {
  return guarded([&] {
    auto id = submit(*req);
    if (!id) return to_grpc(id.error());
    out->set_job_id(*id);
    return grpc::Status::OK;
  });
}

grpc::Status grpc_service::AwaitProof(grpc::ServerContext* ctx, const v1::AwaitProofRequest* req,
                                      v1::ProofResult* out) {
  return guarded([&] { return await(ctx, req->job_id(), req->timeout_ms(), out); });
}

grpc::Status grpc_service::Prove(grpc::ServerContext* ctx, const v1::SubmitProofRequest* req,
                                 v1::ProofResult* out) {
  return guarded([&] {
    auto id = submit(*req);
    if (!id) return to_grpc(id.error());
    return await(ctx, *id, 0, out);
  });
}

grpc::Status grpc_service::CancelProof(grpc::ServerContext*, const v1::CancelProofRequest* req,
                                       v1::CancelProofResponse*) {
  return guarded([&] { return to_grpc(e_.cancel(req->job_id())); });
}

grpc::Status grpc_service::GetStatus(grpc::ServerContext*, const v1::GetStatusRequest*,
                                     v1::GetStatusResponse* out) {
  return guarded([&] {
    out->set_json(status_json_());
    return grpc::Status::OK;
  });
}

grpc::Status grpc_service::GetMetrics(grpc::ServerContext*, const v1::GetMetricsRequest*,
                                      v1::GetMetricsResponse* out) {
  return guarded([&] {
    out->set_text(metrics_text_());
    return grpc::Status::OK;
  });
}

grpc::Status grpc_service::PreloadKey(grpc::ServerContext*, const v1::KeyRequest* req, v1::KeyResponse*) {
  return guarded([&] {
    auto t = tier_from(e_, req->tier(), engine::key_tier::hot, true);
    if (!t) return to_grpc(t.error());
    return to_grpc(e_.preload(req->circuit(), *t));
  });
}

grpc::Status grpc_service::EvictKey(grpc::ServerContext*, const v1::KeyRequest* req, v1::KeyResponse*) {
  return guarded([&] {
    auto t = tier_from(e_, req->tier(), engine::key_tier::cold, false);
    if (!t) return to_grpc(t.error());
    return to_grpc(e_.evict(req->circuit(), *t));
  });
}

}  // namespace cuzk::service
