// SPDX-License-Identifier: MIT OR Apache-2.0
#include "service/grpc_service.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <new>
#include <thread>

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

engine::key_origin grpc_service::origin_of(const grpc::ServerContext* ctx) const {
  // gRPC names a Unix socket's peer "unix:<the socket's path>", a TCP peer "ipv4:..." or "ipv6:...".
  if (socket_path_.empty() || ctx == nullptr || ctx->peer().rfind("unix:", 0) != 0) return engine::key_origin::client;
  // The socket is made mode 0600 (daemon.cpp): connect() then needs the daemon's user or root. A
  // socket whose mode was opened to others since, or replaced by another user's, proves neither.
  struct stat st {};
  if (::lstat(socket_path_.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & 077) != 0)
    return engine::key_origin::client;
  return engine::key_origin::local_owner;
}

grpc::Status grpc_service::RegisterCircuit(grpc::ServerContext* ctx, const v1::RegisterCircuitRequest* req,
                                           v1::RegisterCircuitResponse*) {
  return guarded([&] {
    auto st = e_.register_circuit(
        req->id(), req->zkey_path(), from_wire(req->default_priority(), engine::priority::normal),
        req->replace() ? engine::key_change::replace : engine::key_change::refuse, req->wasm_path(),
        origin_of(ctx));
    // The new key's witness may be the largest now, or a replaced one no longer is.
    if (st && limit_) limit_->follow(e_.list_circuits());
    return to_grpc(st);
  });
}

grpc::Status grpc_service::ListCircuits(grpc::ServerContext*, const v1::ListCircuitsRequest*,
                                        v1::ListCircuitsResponse* out) {
  return guarded([&] {
    const auto snapshot = e_.snapshot();  // the keys' tiers
    for (const auto& c : e_.list_circuits()) {
      auto* w = out->add_circuits();
      w->set_tier("cold");  // a key the key manager lists nowhere is on disk only
      for (const auto& k : snapshot.keys)
        if (k.circuit == c.id) w->set_tier(k.tier_name);
      w->set_id(c.id);
      w->set_zkey_path(c.zkey_path);
      w->set_default_priority(to_wire(c.default_priority));
      w->set_curve(formats::snarkjs_curve_name(c.key.curve));
      w->set_domain_size(c.key.domain_size);
      w->set_variables(c.key.n_vars);
      w->set_public_inputs(c.key.n_public);
      w->set_file_bytes(c.key.file_bytes);
      w->set_wasm_path(c.wasm_path);
    }
    return grpc::Status::OK;
  });
}

result<engine::job_id> grpc_service::submit(const v1::SubmitProofRequest& req) {
  // gRPC's own limit is the ceiling while the limit is derived (message_limit.hpp): the engine never
  // sees a request over the limit the registered keys give.
  if (limit_)
    if (auto st = limit_->admit(req.ByteSizeLong()); !st) return st;
  return e_.submit(to_job_request(req));
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
    // Named: a Prove call's client learns the job's id only here (its submit and await are one call).
    if (stopping_)
      return to_grpc(status(errc::unavailable, "daemon shutting down; job " + std::to_string(id) +
                                                   " is kept: await it again (cuzk await " + std::to_string(id) + ")"));
    if (ctx->IsCancelled()) return to_grpc(status(errc::cancelled, "the client went away"));
    auto wait = slice;
    if (timeout_ms > 0)
      wait = std::clamp(duration_cast<milliseconds>(until - steady_clock::now()), 1ms, slice);
    const auto asked = steady_clock::now();
    auto r = e_.await(id, wait);
    if (!r && r.error().code() == errc::unavailable && (timeout_ms == 0 || steady_clock::now() < until)) {
      // The job store is out of reach (its server restarting, a full disk), or the job's result
      // waits for it: the job is not lost, so this await waits on; only a deadline that passes
      // meanwhile is answered UNAVAILABLE, which a client retries (docs/HARDENING.md, finding 17).
      // A store that refuses at once would otherwise be asked again without a pause.
      std::this_thread::sleep_until(asked + wait);
      continue;
    }
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
