#include "apps/client_commands.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "engine/jobs/job.hpp"
#include "formats/file_io.hpp"
#include "formats/output_files.hpp"
#include "service/client.hpp"
#include "service/grpc_service.hpp"
#include "service/grpc_status.hpp"
#include "service/state_dir.hpp"

namespace cuzk::apps {
namespace {

namespace v1 = cuzk::v1;

// "cuzk: error: daemon: not_found: job 7: unknown": the engine's own code, as the daemon sent it
// (or gRPC's, mapped, when no daemon answered). Exit status 1, as for every error.
int rpc_error(const grpc::Status& s) { return report_error("daemon: " + service::from_grpc(s).to_string()); }

v1::Priority wire_priority(const std::string& name) {
  if (name.empty()) return v1::PRIORITY_UNSPECIFIED;
  auto p = engine::priority_from_name(name);
  if (!p) return v1::PRIORITY_UNSPECIFIED;
  return service::to_wire(*p);
}

const char* state_name(v1::JobState s) {
  const auto state = service::from_wire(s);
  return state ? engine::job_state_name(*state) : "unknown";
}

// Prints the result's summary on stderr; writes the proofs to out_dir (proof.json/public.json, or
// proof_<i>.json/public_<i>.json when there are several partitions). 0 when the job is done.
int print_result(const v1::ProofResult& r, const std::string& out_dir) {
  const auto& t = r.timings();
  std::fprintf(stderr,
               "job %llu circuit=%s state=%s partitions=%u attempts=%u%s%s queue_wait=%.3fs key_load=%.3fs "
               "synthesis=%.3fs prove=%.3fs verify=%.3fs total=%.3fs%s%s%s\n",
               static_cast<unsigned long long>(r.job_id()), r.circuit().c_str(), state_name(r.state()),
               r.partitions(), r.attempts(), r.ran_on().empty() ? "" : " ran_on=", r.ran_on().c_str(),
               t.queue_wait(), t.key_load(), t.synthesis(), t.prove(), t.verify(), t.total(),
               r.deadline_missed() ? " deadline_missed" : "", r.error().empty() ? "" : " error=", r.error().c_str());
  if (t.h2d() > 0)
    std::fprintf(stderr,
                 "  gpu: h2d=%.4fs (%.1f GB/s) ntt=%.4fs msm a=%.4fs b1=%.4fs b2=%.4fs c=%.4fs h=%.4fs "
                 "assembly=%.4fs kernel_lock wait=%.4fs busy=%.4fs\n",
                 t.h2d(), t.h2d_gb_per_s(), t.ntt(), t.msm_a(), t.msm_b1(), t.msm_b2(), t.msm_c(), t.msm_h(),
                 t.assembly(), t.gpu_wait(), t.gpu_busy());
  if (r.state() != v1::DONE) {
    if (r.state() == v1::FAILED || r.state() == v1::CANCELLED) return exit_failure;
    // `await --timeout-ms` ran out: the user has no proof, which a script must see in the status.
    return report_error("job " + std::to_string(r.job_id()) + ": not finished when the wait ended (state " +
                        state_name(r.state()) + "); await it again");
  }
  if (out_dir.empty()) {
    for (const auto& p : r.proofs()) std::printf("%s\n%s\n", p.proof_json().c_str(), p.public_json().c_str());
    return exit_ok;
  }
  // Every file checked, written and renamed together (output_files.hpp); any failure is exit 1, never
  // a silent success with nothing written.
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) return report_error(out_dir + ": --out: cannot create the folder: " + ec.message());
  std::vector<formats::named_path> outs;
  for (int i = 0; i < r.proofs_size(); ++i) {
    const std::string sfx = r.proofs_size() == 1 ? "" : "_" + std::to_string(i);
    outs.push_back({"the proof output", out_dir + "/proof" + sfx + ".json"});
    outs.push_back({"the public output", out_dir + "/public" + sfx + ".json"});
  }
  auto files = formats::output_files::prepare(outs, {});
  if (!files) return report_error(files.error());
  for (int i = 0; i < r.proofs_size(); ++i) {
    const auto k = static_cast<std::size_t>(2 * i);
    if (auto s = formats::write_file_atomically(files->staging_path(k), r.proofs(i).proof_json()); !s)
      return report_error(s);
    if (auto s = formats::write_file_atomically(files->staging_path(k + 1), r.proofs(i).public_json()); !s)
      return report_error(s);
  }
  if (auto s = files->commit(); !s) return report_error(s);
  return exit_ok;
}

}  // namespace

std::string socket_option_help() {
  static const std::string help =  // resolved once: a dozen subcommands show it
      "the Unix socket the daemon listens on (its log says where at start: \"listening socket=...\"); "
      "default: " +
      service::default_socket_path() +
      ", where `cuzk daemon` puts it when its config sets neither socket nor data_dir ($XDG_STATE_HOME/cuzk, "
      "else ~/.local/state/cuzk, else ./cuzk-state)";
  return help;
}

void client_commands::add_to(CLI::App& app) {
  auto conn = [&](CLI::App* s) {
    s->add_option("--socket", socket, socket_option_help());
    s->add_option("--addr", addr, "the daemon's TCP address, host:port");
    return s;
  };
  auto submit_opts = [&](CLI::App* s) {
    s->add_option("--circuit,-c", circuit, "the registered circuit id")->required();
    s->add_option("witnesses", witnesses, "one .wtns per partition, in order")->required();
    s->add_option("--priority,-p", priority, "LOW, NORMAL, HIGH or CRITICAL (default: the circuit's)");
    s->add_option("--request-id", request_id, "idempotency key: resubmitting returns the first job");
    s->add_option("--deadline-unix-ms", deadline_unix_ms, "deadline, ms since the Unix epoch");
    s->add_flag("--path", by_path,
                "send the witnesses' paths (the daemon reads them) instead of their bytes");
  };
  submit = conn(app.add_subcommand("submit", "queue a proof on a running daemon; prints the job id"));
  submit_opts(submit);
  prove = conn(app.add_subcommand("prove-remote", "prove on a running daemon and wait for the proofs"));
  submit_opts(prove);
  prove->add_option("--out,-o", out_dir, "write proof.json and public.json here (default: stdout)");
  await = conn(app.add_subcommand("await", "wait for a job's result"));
  await->add_option("job", job, "the job id")->required();
  await->add_option("--timeout-ms", timeout_ms, "give up waiting after this long (0: until it ends)");
  await->add_option("--out,-o", out_dir, "write proof.json and public.json here (default: stdout)");
  cancel = conn(app.add_subcommand("cancel", "cancel a queued or running job"));
  cancel->add_option("job", job, "the job id")->required();
  status = conn(app.add_subcommand("status", "the daemon's status (JSON)"));
  metrics = conn(app.add_subcommand("metrics", "the daemon's metrics (Prometheus text)"));
  preload = conn(app.add_subcommand("preload", "load a circuit's proving key ahead of use"));
  preload->add_option("circuit", circuit, "the circuit id")->required();
  preload->add_option("--tier", tier, "warm, hot (default), device (every GPU) or one GPU (device:0)");
  evict = conn(app.add_subcommand("evict", "move a circuit's proving key down (default: drop it)"));
  evict->add_option("circuit", circuit, "the circuit id")->required();
  evict->add_option("--tier", tier,
                    "cold (default), warm or hot (device copies go too), or one GPU's copy (device:0)");
  reg = conn(app.add_subcommand("register", "register a circuit (a zkey on the daemon's disk)"));
  reg->add_option("circuit", circuit, "the circuit id")->required();
  reg->add_option("zkey", zkey, "the .zkey path, as the daemon sees it")->required();
  reg->add_option("--priority,-p", priority, "the circuit's default priority");
  reg->add_flag("--replace", replace,
                "re-point an id registered with another key (refused while its jobs are queued or running)");
}

bool client_commands::chosen() const {
  for (auto* s : {submit, await, cancel, status, metrics, preload, evict, reg, prove})
    if (s && s->parsed()) return true;
  return false;
}

int client_commands::run(const global_options&) const {
  if (!priority.empty() && !engine::priority_from_name(priority))
    return usage_error("--priority: expected LOW, NORMAL, HIGH or CRITICAL, found \"" + priority + "\"");
  auto stub = service::make_stub(service::connect(socket, addr));
  grpc::ClientContext ctx;

  if (submit->parsed() || prove->parsed()) {
    v1::SubmitProofRequest req;
    req.set_circuit(circuit);
    req.set_priority(wire_priority(priority));
    req.set_request_id(request_id);
    req.set_deadline_unix_ms(deadline_unix_ms);
    for (const auto& w : witnesses) {
      auto* p = req.add_partitions();
      if (by_path) {
        p->set_path(std::filesystem::absolute(w).string());
        continue;
      }
      auto bytes = formats::read_text_file(w);
      if (!bytes) return report_error(bytes.error().with_context("the witness"));
      p->set_wtns(std::move(bytes).value());
    }
    if (submit->parsed()) {
      v1::SubmitProofResponse resp;
      auto s = stub->SubmitProof(&ctx, req, &resp);
      if (!s.ok()) return rpc_error(s);
      std::printf("%llu\n", static_cast<unsigned long long>(resp.job_id()));
      return exit_ok;
    }
    v1::ProofResult r;
    auto s = stub->Prove(&ctx, req, &r);
    if (!s.ok()) return rpc_error(s);
    return print_result(r, out_dir);
  }
  if (await->parsed()) {
    v1::AwaitProofRequest req;
    req.set_job_id(job);
    req.set_timeout_ms(timeout_ms);
    v1::ProofResult r;
    auto s = stub->AwaitProof(&ctx, req, &r);
    if (!s.ok()) return rpc_error(s);
    return print_result(r, out_dir);
  }
  if (cancel->parsed()) {
    v1::CancelProofRequest req;
    req.set_job_id(job);
    v1::CancelProofResponse resp;
    auto s = stub->CancelProof(&ctx, req, &resp);
    return s.ok() ? exit_ok : rpc_error(s);
  }
  if (status->parsed()) {
    v1::GetStatusResponse resp;
    auto s = stub->GetStatus(&ctx, {}, &resp);
    if (!s.ok()) return rpc_error(s);
    std::printf("%s\n", resp.json().c_str());
    return exit_ok;
  }
  if (metrics->parsed()) {
    v1::GetMetricsResponse resp;
    auto s = stub->GetMetrics(&ctx, {}, &resp);
    if (!s.ok()) return rpc_error(s);
    std::fputs(resp.text().c_str(), stdout);
    return exit_ok;
  }
  if (preload->parsed() || evict->parsed()) {
    v1::KeyRequest req;
    req.set_circuit(circuit);
    req.set_tier(tier);
    v1::KeyResponse resp;
    auto s = preload->parsed() ? stub->PreloadKey(&ctx, req, &resp) : stub->EvictKey(&ctx, req, &resp);
    return s.ok() ? exit_ok : rpc_error(s);
  }
  if (reg->parsed()) {
    v1::RegisterCircuitRequest req;
    req.set_id(circuit);
    req.set_zkey_path(std::filesystem::absolute(zkey).string());
    req.set_default_priority(wire_priority(priority));
    req.set_replace(replace);
    v1::RegisterCircuitResponse resp;
    auto s = stub->RegisterCircuit(&ctx, req, &resp);
    return s.ok() ? exit_ok : rpc_error(s);
  }
  return report_error("no client verb");
}

}  // namespace cuzk::apps
