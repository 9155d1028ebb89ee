// SPDX-License-Identifier: MIT OR Apache-2.0
// The gRPC adapter: cuzk.v1.ProvingEngine (proto/cuzk/v1/proving.proto) onto the engine.
//
// Thin on purpose: each handler translates the request into engine types (wire.hpp), calls one
// engine method, and translates back. Engine statuses become gRPC statuses with the matching code and
// the same message (grpc_status.hpp); nothing thrown inside a handler escapes it (a std::exception
// becomes INTERNAL).
// AwaitProof and Prove block an RPC thread while they wait, which the synchronous server's thread
// pool allows for; they wait in short slices so that a client that goes away, or the daemon shutting
// down (stop()), ends the wait. A client that goes away does not cancel its job.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cuzk/v1/proving.grpc.pb.h"
#include "engine/engine.hpp"
#include "service/grpc_status.hpp"
#include "service/message_limit.hpp"
#include "service/wire.hpp"

namespace cuzk::service {

class grpc_service final : public cuzk::v1::ProvingEngine::Service {
 public:
  // `status_json` and `metrics_text` render the documents the HTTP endpoints also serve, the status
  // in its full view: whoever reaches the gRPC API may already register keys by path, submit and
  // cancel (the Unix socket is mode 0600; `listen` is for private addresses only).
  // `limit`, when given, is the daemon's message limit: SubmitProof and Prove refuse a request over
  // it, and RegisterCircuit derives it again from the registry (message_limit.hpp).
  // `socket_path` is the daemon's Unix socket: a RegisterCircuit that arrives on it is the daemon's
  // own user's (key_origin::local_owner) while the file is still its user's with mode 0600, since
  // only that user and root may connect to such a socket. gRPC 1.51 does not expose the peer's
  // credentials (SO_PEERCRED), so the file's mode is the check. Empty: every caller is a client.
  grpc_service(engine::engine& e, std::function<std::string()> status_json,
               std::function<std::string()> metrics_text, message_limit* limit = nullptr,
               std::string socket_path = {})
      : e_(e),
        status_json_(std::move(status_json)),
        metrics_text_(std::move(metrics_text)),
        limit_(limit),
        socket_path_(std::move(socket_path)) {}

  grpc::Status RegisterCircuit(grpc::ServerContext*, const cuzk::v1::RegisterCircuitRequest*,
                               cuzk::v1::RegisterCircuitResponse*) override;
  grpc::Status ListCircuits(grpc::ServerContext*, const cuzk::v1::ListCircuitsRequest*,
                            cuzk::v1::ListCircuitsResponse*) override;
  grpc::Status SubmitProof(grpc::ServerContext*, const cuzk::v1::SubmitProofRequest*,
                           cuzk::v1::SubmitProofResponse*) override;
  grpc::Status AwaitProof(grpc::ServerContext*, const cuzk::v1::AwaitProofRequest*,
                          cuzk::v1::ProofResult*) override;
  grpc::Status Prove(grpc::ServerContext*, const cuzk::v1::SubmitProofRequest*,
                     cuzk::v1::ProofResult*) override;
  grpc::Status CancelProof(grpc::ServerContext*, const cuzk::v1::CancelProofRequest*,
                           cuzk::v1::CancelProofResponse*) override;
  grpc::Status GetStatus(grpc::ServerContext*, const cuzk::v1::GetStatusRequest*,
                         cuzk::v1::GetStatusResponse*) override;
  grpc::Status GetMetrics(grpc::ServerContext*, const cuzk::v1::GetMetricsRequest*,
                          cuzk::v1::GetMetricsResponse*) override;
  grpc::Status PreloadKey(grpc::ServerContext*, const cuzk::v1::KeyRequest*, cuzk::v1::KeyResponse*) override;
  grpc::Status EvictKey(grpc::ServerContext*, const cuzk::v1::KeyRequest*, cuzk::v1::KeyResponse*) override;

  // Every wait in progress returns UNAVAILABLE; so do later ones. For shutdown.
  void stop() noexcept { stopping_ = true; }

 private:
  result<engine::job_id> submit(const cuzk::v1::SubmitProofRequest& req);
  grpc::Status await(grpc::ServerContext* ctx, engine::job_id id, uint64_t timeout_ms,
                     cuzk::v1::ProofResult* out);

  // Who a RegisterCircuit's paths are from (see the constructor).
  engine::key_origin origin_of(const grpc::ServerContext* ctx) const;

  engine::engine& e_;
  std::function<std::string()> status_json_;
  std::function<std::string()> metrics_text_;
  message_limit* limit_;
  const std::string socket_path_;
  std::atomic<bool> stopping_{false};
};

}  // namespace cuzk::service
