// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/client_commands.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/utf8.hpp"
#include "engine/jobs/job.hpp"
#include "formats/file_io.hpp"
#include "formats/output_files.hpp"
#include "service/client.hpp"
#include "service/cluster_table.hpp"
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

// A job id as the daemon printed it: decimal digits only. CLI11 reads an unsigned option with
// strtoull, which takes "-1" as 2^64 - 1 (and "0x10" as 16): `cuzk cancel -- -1` named job
// 18446744073709551615.
const CLI::Validator job_id_digits(
    [](std::string& s) {
      const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
      return digits ? std::string() : "expected a job id (decimal digits, as submit printed it), found \"" + s + "\"";
    },
    "JOB");

const char* state_name(v1::JobState s) {
  const auto state = service::from_wire(s);
  return state ? engine::job_state_name(*state) : "unknown";
}

// Without -o the proofs go to stdout as one JSON document, so that a pipe into jq or a JSON parser
// reads them (two documents back to back parse nowhere): for one partition the object
// snarkjs.groth16.fullProve returns, {"proof": {...}, "publicSignals": [...]}; for several, an array
// of those in partition order. Empty when a proof's JSON does not parse (the daemon wrote it).
std::optional<std::string> proofs_document(const v1::ProofResult& r) {
  using nlohmann::json;
  json all = json::array();
  for (const auto& p : r.proofs()) {
    json proof = json::parse(p.proof_json(), nullptr, false);
    json pub = json::parse(p.public_json(), nullptr, false);
    if (proof.is_discarded() || pub.is_discarded()) return std::nullopt;
    all.push_back({{"proof", std::move(proof)}, {"publicSignals", std::move(pub)}});
  }
  // snarkjs writes its JSON with an indent of 1; so does this.
  return (all.size() == 1 ? all[0] : all).dump(1);
}

// Prints the result's summary on stderr; writes the proofs to out_dir (proof.json/public.json, or
// proof_<i>.json/public_<i>.json when there are several partitions), or without one prints them as
// one JSON document on stdout (proofs_document). 0 when the job is done.
int print_result(const v1::ProofResult& r, const std::string& out_dir) {
  const auto& t = r.timings();
  std::fprintf(stderr,
               "job %llu circuit=%s state=%s partitions=%u attempts=%u%s%s queue_wait=%.3fs key_load=%.3fs "
               "witness=%.3fs synthesis=%.3fs prove=%.3fs verify=%.3fs total=%.3fs%s%s%s\n",
               static_cast<unsigned long long>(r.job_id()), r.circuit().c_str(), state_name(r.state()),
               r.partitions(), r.attempts(), r.ran_on().empty() ? "" : " ran_on=", r.ran_on().c_str(),
               t.queue_wait(), t.key_load(), t.witness(), t.synthesis(), t.prove(), t.verify(), t.total(),
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
    const auto doc = proofs_document(r);
    if (!doc)
      return report_error("job " + std::to_string(r.job_id()) + ": the daemon's proof JSON does not parse");
    std::printf("%s\n", doc->c_str());
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

// `cuzk circuits --json`: one object per circuit, with ListCircuits' field names.
std::string circuits_json(const v1::ListCircuitsResponse& resp) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : resp.circuits()) {
    const auto prio = service::from_wire(c.default_priority(), engine::priority::normal);
    out.push_back({{"id", c.id()},
                   {"curve", c.curve()},
                   {"domain_size", c.domain_size()},
                   {"variables", c.variables()},
                   {"public_inputs", c.public_inputs()},
                   {"file_bytes", c.file_bytes()},
                   {"tier", c.tier()},
                   {"default_priority", engine::priority_name(prio)},
                   {"zkey_path", c.zkey_path()},
                   {"wasm_path", c.wasm_path()}});
  }
  return out.dump(2) + "\n";
}

// `cuzk circuits`: a table for a person, columns as wide as their longest value.
std::string circuits_table(const v1::ListCircuitsResponse& resp) {
  if (resp.circuits_size() == 0)
    return "no circuits registered (add one: cuzk register <id> <circuit.zkey>)\n";
  std::vector<std::vector<std::string>> rows = {
      {"ID", "CURVE", "DOMAIN", "VARIABLES", "PUBLIC", "ZKEY SIZE", "TIER", "PRIORITY", "ZKEY"}};
  for (const auto& c : resp.circuits()) {
    const auto prio = service::from_wire(c.default_priority(), engine::priority::normal);
    rows.push_back({c.id(), c.curve(), std::to_string(c.domain_size()), std::to_string(c.variables()),
                    std::to_string(c.public_inputs()), human_bytes(static_cast<double>(c.file_bytes())),
                    c.tier(), engine::priority_name(prio), c.zkey_path()});
  }
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string socket_option_help() {
  static const std::string help =  // resolved once: a dozen subcommands show it
      "the Unix socket the daemon listens on (its log says where at start: \"listening socket=...\"); "
      "default: " +
      service::default_socket_path() +
      ", where `cuzk daemon` puts it when its config sets neither socket nor data_dir ($XDG_STATE_HOME/cuzk, "
      "else ~/.local/state/cuzk, else ./cuzk-state); when no socket is there, the packaged service's " +
      std::string(service::system_socket_path);
  return help;
}

void add_remote_options(CLI::App* s, service::client_credentials& creds) {
  s->add_option("--tls-ca", creds.tls_ca,
                "with --addr: speak TLS, trusting the daemon's certificate when this CA (a PEM file) signed it")
      ->envname("CUZK_TLS_CA");
  s->add_option("--tls-cert", creds.tls_cert,
                "with --addr: speak TLS and show this client certificate (PEM; the daemon's tls_client_ca "
                "must have signed it)")
      ->envname("CUZK_TLS_CERT");
  s->add_option("--tls-key", creds.tls_key, "the private key of --tls-cert (PEM)")->envname("CUZK_TLS_KEY");
  s->add_option("--token-file", creds.token_file,
                "with --addr: speak TLS and send the token on this file's first line as \"authorization: "
                "Bearer ...\" (the daemon's auth_token_file)")
      ->envname("CUZK_TOKEN_FILE");
}

void client_commands::add_to(CLI::App& app) {
  auto conn = [&](CLI::App* s) {
    s->add_option("--socket", socket, socket_option_help());
    s->add_option("--addr", addr, "the daemon's TCP address, host:port");
    add_remote_options(s, creds);
    return s;
  };
  auto submit_opts = [&](CLI::App* s) {
    s->add_option("--circuit,-c", circuit, "the registered circuit id")->required();
    auto* w = s->add_option("witnesses", witnesses, "one .wtns per partition, in order");
    s->add_option("--input,-i", inputs,
                  "instead of witnesses: circom input JSON (input.json), one per partition, for a circuit "
                  "registered with its wasm; the daemon computes the witness")
        ->excludes(w);
    s->add_option("--priority,-p", priority, "LOW, NORMAL, HIGH or CRITICAL (default: the circuit's)");
    s->add_option("--request-id", request_id, "idempotency key: resubmitting returns the first job");
    s->add_option("--deadline-unix-ms", deadline_unix_ms, "deadline, ms since the Unix epoch");
    s->add_flag("--path", by_path,
                "send the witnesses' paths (the daemon reads them) instead of their bytes")
        ->excludes("--input");
  };
  submit = conn(app.add_subcommand("submit", "queue a proof on a running daemon; prints the job id"));
  submit_opts(submit);
  prove = conn(app.add_subcommand("prove-remote", "prove on a running daemon and wait for the proofs"));
  submit_opts(prove);
  prove->add_option(
      "--out,-o", out_dir,
      "write proof.json and public.json into this folder (default: print one JSON object, "
      "{\"proof\": ..., \"publicSignals\": ...}, on stdout; an array of them for several partitions)");
  await = conn(app.add_subcommand("await", "wait for a job's result"));
  await->add_option("job", job, "the job id")->required()->check(job_id_digits);
  await->add_option("--timeout-ms", timeout_ms, "give up waiting after this long (0: until it ends)");
  await->add_option(
      "--out,-o", out_dir,
      "write proof.json and public.json into this folder (default: one JSON object on stdout, as "
      "prove-remote prints it)");
  cancel = conn(app.add_subcommand("cancel", "cancel a queued or running job"));
  cancel->add_option("job", job, "the job id")->required()->check(job_id_digits);
  status = conn(app.add_subcommand("status", "the daemon's status (JSON)"));
  status->add_flag("--cluster", cluster,
                   "only the cluster, as tables: every node on the job database (PostgreSQL) with its heartbeat, "
                   "devices and resident keys, and the queue by priority");
  status->add_flag("--json", json, "with --cluster: the cluster's JSON object instead of tables");
  metrics = conn(app.add_subcommand("metrics", "the daemon's metrics (Prometheus text)"));
  circuits = conn(app.add_subcommand(
      "circuits",
      "the circuits registered with the daemon: id, curve, sizes, where the key is resident, zkey"));
  circuits->add_flag("--json", json, "print them as a JSON array (ListCircuits' fields) instead of a table");
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
  reg->add_option("--wasm", wasm,
                  "the circuit's witness generator (circuit.wasm from circom --wasm, as the daemon sees it): "
                  "the circuit then takes input JSON (prove-remote --input); compiled now, or found in the "
                  "daemon's witness cache");
  reg->add_flag("--replace", replace,
                "re-point an id registered with another key (refused while its jobs are queued or running)");
}

bool client_commands::chosen() const {
  for (auto* s : {submit, await, cancel, status, metrics, preload, evict, reg, prove, circuits})
    if (s && s->parsed()) return true;
  return false;
}

int client_commands::run(const global_options&) const {
  if (!priority.empty() && !engine::priority_from_name(priority))
    return usage_error("--priority: expected LOW, NORMAL, HIGH or CRITICAL, found \"" + priority + "\"");
  auto channel = service::connect(socket, addr, creds);
  if (!channel) return usage_error(channel.error());
  auto stub = service::make_stub(*channel);
  grpc::ClientContext ctx;
  // A refused connection or call at a TCP address says what to change (client_credentials.hpp).
  const auto fail = [&](const grpc::Status& s) {
    const std::string why = socket.empty() ? service::explain_call_failure(s, addr, creds) : std::string();
    return why.empty() ? rpc_error(s) : report_error("daemon: " + why);
  };

  if (submit->parsed() || prove->parsed()) {
    v1::SubmitProofRequest req;
    req.set_circuit(circuit);
    req.set_priority(wire_priority(priority));
    req.set_request_id(request_id);
    req.set_deadline_unix_ms(deadline_unix_ms);
    if (witnesses.empty() && inputs.empty())
      return usage_error("expected one .wtns per partition, or --input input.json");
    for (const auto& in : inputs) {
      auto text = formats::read_text_file(in);
      if (!text) return report_error(text.error().with_context("the input JSON"));
      // The protocol's field is a string, which must be UTF-8: said here, naming the file, rather
      // than sent for the daemon to refuse (docs/HARDENING.md, finding 27).
      if (const auto at = first_invalid_utf8(*text))
        return report_error(in + ": not UTF-8 at byte " + std::to_string(*at) + " (JSON is UTF-8)");
      req.add_partitions()->set_input_json(std::move(text).value());
    }
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
      if (!s.ok()) return fail(s);
      std::printf("%llu\n", static_cast<unsigned long long>(resp.job_id()));
      return exit_ok;
    }
    v1::ProofResult r;
    auto s = stub->Prove(&ctx, req, &r);
    if (!s.ok()) return fail(s);
    return print_result(r, out_dir);
  }
  if (await->parsed()) {
    v1::AwaitProofRequest req;
    req.set_job_id(job);
    req.set_timeout_ms(timeout_ms);
    v1::ProofResult r;
    auto s = stub->AwaitProof(&ctx, req, &r);
    if (!s.ok()) return fail(s);
    return print_result(r, out_dir);
  }
  if (cancel->parsed()) {
    v1::CancelProofRequest req;
    req.set_job_id(job);
    v1::CancelProofResponse resp;
    auto s = stub->CancelProof(&ctx, req, &resp);
    return s.ok() ? exit_ok : fail(s);
  }
  if (status->parsed()) {
    v1::GetStatusResponse resp;
    auto s = stub->GetStatus(&ctx, {}, &resp);
    if (!s.ok()) return fail(s);
    if (!cluster) {
      std::printf("%s\n", resp.json().c_str());
      return exit_ok;
    }
    auto text = service::cluster_text(resp.json(), json);
    if (!text) return report_error(text.error());
    std::fputs(text->c_str(), stdout);
    return exit_ok;
  }
  if (metrics->parsed()) {
    v1::GetMetricsResponse resp;
    auto s = stub->GetMetrics(&ctx, {}, &resp);
    if (!s.ok()) return fail(s);
    std::fputs(resp.text().c_str(), stdout);
    return exit_ok;
  }
  if (circuits->parsed()) {
    v1::ListCircuitsResponse resp;
    auto s = stub->ListCircuits(&ctx, {}, &resp);
    if (!s.ok()) return fail(s);
    std::fputs((json ? circuits_json(resp) : circuits_table(resp)).c_str(), stdout);
    return exit_ok;
  }
  if (preload->parsed() || evict->parsed()) {
    v1::KeyRequest req;
    req.set_circuit(circuit);
    req.set_tier(tier);
    v1::KeyResponse resp;
    auto s = preload->parsed() ? stub->PreloadKey(&ctx, req, &resp) : stub->EvictKey(&ctx, req, &resp);
    return s.ok() ? exit_ok : fail(s);
  }
  if (reg->parsed()) {
    v1::RegisterCircuitRequest req;
    req.set_id(circuit);
    req.set_zkey_path(std::filesystem::absolute(zkey).string());
    req.set_default_priority(wire_priority(priority));
    req.set_replace(replace);
    if (!wasm.empty()) req.set_wasm_path(std::filesystem::absolute(wasm).string());
    v1::RegisterCircuitResponse resp;
    auto s = stub->RegisterCircuit(&ctx, req, &resp);
    // The engine says "ask to replace it"; on the command line the way to ask is --replace.
    if (s.error_code() == grpc::StatusCode::ALREADY_EXISTS)
      return report_error("daemon: " + service::from_grpc(s).to_string() + " (cuzk register --replace " +
                          circuit + " " + zkey + ")");
    if (!s.ok()) return fail(s);
    // What the daemon now holds under the id, as it read the key (a user who registered by a
    // relative path or a symlink sees what was meant); the request's own fields where the list fails.
    std::string what = "zkey " + req.zkey_path();
    grpc::ClientContext list_ctx;
    v1::ListCircuitsResponse list;
    if (stub->ListCircuits(&list_ctx, {}, &list).ok())
      for (const auto& c : list.circuits())
        if (c.id() == circuit)
          what = c.curve() + ", " + std::to_string(c.variables()) + " variables, " +
                 std::to_string(c.public_inputs()) + " public, domain " + std::to_string(c.domain_size()) +
                 ", zkey " + c.zkey_path() + (c.wasm_path().empty() ? "" : ", wasm " + c.wasm_path());
    std::printf("registered %s%s: %s\n", circuit.c_str(), replace ? " (replacing its key)" : "", what.c_str());
    return exit_ok;
  }
  return report_error("no client verb");
}

}  // namespace cuzk::apps
