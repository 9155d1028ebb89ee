// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/bench_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>

#include "apps/client_commands.hpp"
#include "apps/upload_bench.hpp"
#include "engine/jobs/job.hpp"
#include "formats/curve_id.hpp"
#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/verification_key.hpp"
#include "formats/zkey.hpp"
#include "groth16/verifier.hpp"
#include "service/client.hpp"
#include "service/grpc_service.hpp"
#include "service/status_summary.hpp"

namespace cuzk::apps {
namespace {

namespace v1 = cuzk::v1;
using clock_type = std::chrono::steady_clock;

// True when a returned proof verifies; a string names why not.
using checker = std::function<std::string(const v1::PartitionProof&)>;

template <class C>
result<checker> make_checker(const std::string& zkey_path) {
  auto key = formats::zkey<C>::open(zkey_path);
  if (!key) return key.error();
  auto vk = std::make_shared<formats::verification_key<C>>(formats::verification_key_of(*key));
  return checker([vk](const v1::PartitionProof& p) -> std::string {
    auto proof = formats::proof_from_json<C>(p.proof_json(), "proof_json");
    if (!proof) return proof.error().message();
    auto pub = formats::public_from_json<C>(p.public_json(), "public_json");
    if (!pub) return pub.error().message();
    auto s = groth16::verify<C>(*vk, *pub, *proof);
    return s.is_ok() ? std::string() : "the proof does not verify: " + s.message();
  });
}

// "CRITICAL:1,NORMAL:8,LOW:1" -> one priority per slot of a cycle of length 10, each class's
// slots spread evenly over the cycle rather than bunched together.
result<std::vector<v1::Priority>> parse_mix(const std::string& mix) {
  std::vector<std::pair<v1::Priority, uint64_t>> parts;
  std::size_t at = 0;
  while (at <= mix.size()) {
    auto end = mix.find(',', at);
    if (end == std::string::npos) end = mix.size();
    const std::string item = mix.substr(at, end - at);
    const auto colon = item.find(':');
    const std::string name = item.substr(0, colon);
    auto p = engine::priority_from_name(name);
    uint64_t w = 1;
    if (colon != std::string::npos) {
      try {
        w = std::stoull(item.substr(colon + 1));
      } catch (...) {
        w = 0;
      }
    }
    if (!p || w == 0 || w > 1000)
      return status(errc::invalid_argument, "--priority-mix: expected PRIORITY:WEIGHT[,...] with weights in "
                                            "[1, 1000], found \"" + item + "\"");
    parts.emplace_back(service::to_wire(*p), w);
    at = end + 1;
  }
  uint64_t total = 0;
  for (const auto& [p, w] : parts) total += w;
  // Slot i goes to the class whose share is furthest behind its target w/total (smooth weighted
  // round robin), so 1 CRITICAL in 10 lands once in the cycle, not first.
  std::vector<v1::Priority> cycle;
  std::vector<int64_t> credit(parts.size(), 0);
  for (uint64_t i = 0; i < total; ++i) {
    std::size_t best = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      credit[k] += static_cast<int64_t>(parts[k].second);
      if (credit[k] > credit[best]) best = k;
    }
    credit[best] -= static_cast<int64_t>(total);
    cycle.push_back(parts[best].first);
  }
  return cycle;
}

const char* wire_priority_name(v1::Priority p) {
  const auto prio = service::from_wire(p);
  return prio ? engine::priority_name(*prio) : "DEFAULT";
}

// Nearest-rank percentile of sorted samples.
double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

struct tally {
  std::mutex m;
  std::map<v1::Priority, std::vector<double>> latency_ms;  // completed and verified
  std::map<v1::Priority, uint64_t> failed;
  uint64_t verified = 0;
  std::string first_error;
  // The daemon's own phase times of the completed jobs, summed, and where they ran.
  v1::Timings server;
  double h2d_bytes = 0;
  std::map<std::string, uint64_t> ran_on;

  void ok(v1::Priority p, double ms, bool was_verified, const v1::ProofResult& r) {
    std::lock_guard l(m);
    latency_ms[p].push_back(ms);
    verified += was_verified;
    const auto& t = r.timings();
    auto& s = server;
    s.set_queue_wait(s.queue_wait() + t.queue_wait());
    s.set_witness(s.witness() + t.witness());
    s.set_synthesis(s.synthesis() + t.synthesis());
    s.set_prove(s.prove() + t.prove());
    s.set_verify(s.verify() + t.verify());
    s.set_total(s.total() + t.total());
    s.set_h2d(s.h2d() + t.h2d());
    s.set_ntt(s.ntt() + t.ntt());
    s.set_msm_a(s.msm_a() + t.msm_a());
    s.set_msm_b1(s.msm_b1() + t.msm_b1());
    s.set_msm_b2(s.msm_b2() + t.msm_b2());
    s.set_msm_c(s.msm_c() + t.msm_c());
    s.set_msm_h(s.msm_h() + t.msm_h());
    s.set_assembly(s.assembly() + t.assembly());
    s.set_gpu_wait(s.gpu_wait() + t.gpu_wait());
    s.set_gpu_busy(s.gpu_busy() + t.gpu_busy());
    h2d_bytes += t.h2d() * t.h2d_gb_per_s() * 1e9;
    ++ran_on[r.ran_on().empty() ? "?" : r.ran_on()];
  }
  void fail(v1::Priority p, const std::string& why) {
    std::lock_guard l(m);
    ++failed[p];
    if (first_error.empty()) first_error = why;
  }
};

void print_report(const char* mode, tally& t, double wall_s, bool verify) {
  uint64_t done = 0, failed = 0;
  std::vector<double> all;
  std::printf("%-9s %8s %8s %9s %9s %9s %9s\n", "priority", "proofs", "failed", "p50_ms", "p90_ms", "p99_ms",
              "max_ms");
  std::map<v1::Priority, bool> seen;
  for (auto& [p, v] : t.latency_ms) seen[p] = true;
  for (auto& [p, n] : t.failed) seen[p] = true;
  for (auto it = seen.rbegin(); it != seen.rend(); ++it) {
    auto& v = t.latency_ms[it->first];
    std::sort(v.begin(), v.end());
    all.insert(all.end(), v.begin(), v.end());
    const uint64_t f = t.failed[it->first];
    done += v.size();
    failed += f;
    std::printf("%-9s %8zu %8llu %9.1f %9.1f %9.1f %9.1f\n", wire_priority_name(it->first), v.size(),
                static_cast<unsigned long long>(f), percentile(v, 0.5), percentile(v, 0.9), percentile(v, 0.99),
                v.empty() ? 0.0 : v.back());
  }
  std::sort(all.begin(), all.end());
  std::printf("%-9s %8zu %8llu %9.1f %9.1f %9.1f %9.1f\n", "all", all.size(),
              static_cast<unsigned long long>(failed), percentile(all, 0.5), percentile(all, 0.9),
              percentile(all, 0.99), all.empty() ? 0.0 : all.back());
  std::printf("mode=%s proofs=%llu verified=%s failed=%llu wall=%.3fs throughput=%.2f proofs/s\n", mode,
              static_cast<unsigned long long>(done),
              verify ? std::to_string(t.verified).c_str() : "skipped", static_cast<unsigned long long>(failed),
              wall_s, wall_s > 0 ? static_cast<double>(done) / wall_s : 0.0);
  if (done > 0) {
    // The daemon's view, mean seconds per job: where the latency went, and on a GPU what the
    // device did (busy = kernel lock held; busy x throughput is the device's busy fraction).
    const auto& s = t.server;
    const double n = static_cast<double>(done);
    std::printf("server_mean_s queue_wait=%.4f witness=%.4f synthesis=%.4f prove=%.4f verify=%.4f total=%.4f",
                s.queue_wait() / n, s.witness() / n, s.synthesis() / n, s.prove() / n, s.verify() / n, s.total() / n);
    if (s.h2d() > 0)
      std::printf(" h2d=%.4f h2d_gb_per_s=%.1f ntt=%.4f msm_a=%.4f msm_b1=%.4f msm_b2=%.4f msm_c=%.4f msm_h=%.4f "
                  "assembly=%.4f gpu_wait=%.4f gpu_busy=%.4f",
                  s.h2d() / n, t.h2d_bytes / s.h2d() / 1e9, s.ntt() / n, s.msm_a() / n, s.msm_b1() / n,
                  s.msm_b2() / n, s.msm_c() / n, s.msm_h() / n, s.assembly() / n, s.gpu_wait() / n,
                  s.gpu_busy() / n);
    std::printf("\nran_on");
    for (const auto& [where, count] : t.ran_on)
      std::printf(" %s=%llu", where.c_str(), static_cast<unsigned long long>(count));
    std::printf("\n");
  }
  if (!t.first_error.empty()) std::fprintf(stderr, "cuzk: first failure: %s\n", t.first_error.c_str());
}

}  // namespace

void bench_command::add_to(CLI::App& bench) {
  auto opts = [&](CLI::App* s) {
    s->add_option("--socket", socket, socket_option_help());
    s->add_option("--addr", addr, "the daemon's TCP address, host:port");
    add_remote_options(s, creds);
    s->add_option("--circuit,-c", circuit, "the registered circuit id")->required();
    s->add_option("witnesses", witnesses, "the .wtns files (or with --input-json the input.json files), used in turn, one per job")->required();
    s->add_option("--zkey", zkey, "the zkey whose verification key checks the proofs "
                                  "(default: the daemon's path for the circuit)");
    s->add_option("--priority-mix", priority_mix, "weights per priority, e.g. CRITICAL:1,NORMAL:8,LOW:1");
    s->add_flag("--no-verify", no_verify, "do not check the returned proofs");
    s->add_flag("--input-json", input_json,
                "the files are the circuit's input JSON (input.json), sent for the daemon to compute each "
                "witness with the circuit's wasm (registered with --wasm)");
    s->add_flag("--witness-by-path", by_path,
                "send each witness's absolute path for the daemon to read, not its bytes (a daemon on "
                "this machine; how a prover beside its witness generator submits)");
    return s;
  };
  single = opts(bench.add_subcommand("single", "a running daemon: one proof at a time"));
  single->add_option("--count,-n", count, "proofs to make")->check(CLI::Range(1, 1000000));
  batch = opts(bench.add_subcommand("batch", "a running daemon: submit every job at once, then await them all"));
  batch->add_option("--count,-n", count, "proofs to make")->check(CLI::Range(1, 1000000));
  batch->add_option("--concurrency,-j", concurrency, "client threads submitting and awaiting")
      ->check(CLI::Range(1, 1024));
  stress = opts(
      bench.add_subcommand("stress", "a running daemon: keep --concurrency proofs in flight for --duration seconds"));
  stress->add_option("--concurrency,-j", concurrency, "proofs in flight")->check(CLI::Range(1, 1024));
  stress->add_option("--duration,-d", duration_s, "seconds")->check(CLI::Range(0.1, 86400.0));
  stress->add_option("--warmup", warmup_s,
                     "seconds at the start left out of the after-warm-up throughput and of the daemon's "
                     "GPU-busy and memory lines (part of --duration)")
      ->check(CLI::Range(0.0, 86400.0));
  upload = opts(bench.add_subcommand("upload", "a running daemon: what sending a witness's bytes costs before a proof "
                                               "(calls it refuses once it holds them; no job is made)"));
  upload->add_option("--count,-n", count, "rounds (two calls each)")->check(CLI::Range(1, 10000));
}

bool bench_command::chosen() const {
  return (single && single->parsed()) || (batch && batch->parsed()) || (stress && stress->parsed()) ||
         (upload && upload->parsed());
}

int bench_command::run(const global_options&) const {
  auto mix = parse_mix(priority_mix);
  if (!mix) return usage_error(mix.error());
  if (stress->parsed() && warmup_s >= duration_s)
    return usage_error("--warmup: expected less than --duration (" + std::to_string(duration_s) +
                       " s), found " + std::to_string(warmup_s));
  // The bytes of each witness, or (--witness-by-path) its absolute path.
  std::vector<std::string> wtns;
  for (const auto& w : witnesses) {
    std::ifstream f(w, std::ios::binary);
    if (!f) return report_error(w + ": cannot open the witness");
    if (by_path)
      wtns.push_back(std::filesystem::absolute(w).string());
    else
      wtns.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  if (upload->parsed() && by_path) return usage_error("--witness-by-path: bench upload measures sending the bytes");
  if (input_json && (by_path || upload->parsed()))
    return usage_error("--input-json: sent as text, not with --witness-by-path or to bench upload");
  if (upload->parsed() && wtns.size() != 1)
    return usage_error("bench upload: expected one witness file, found " + std::to_string(wtns.size()));
  auto connected = service::connect(socket, addr, creds);
  if (!connected) return usage_error(connected.error());
  auto channel = std::move(connected).value();
  auto stub = service::make_stub(channel);
  if (upload->parsed()) return run_upload_bench(*stub, circuit, wtns.front(), count);
  // A refused connection or call at a TCP address says what to change (client_credentials.hpp).
  const auto failure = [&](const grpc::Status& s) {
    const std::string explained = socket.empty() ? service::explain_call_failure(s, addr, creds) : std::string();
    return explained.empty() ? s.error_message() : explained;
  };

  checker check;
  if (!no_verify) {
    std::string path = zkey;
    if (path.empty()) {
      v1::ListCircuitsResponse lc;
      grpc::ClientContext ctx;
      auto s = stub->ListCircuits(&ctx, {}, &lc);
      if (!s.ok()) return report_error("daemon: ListCircuits: " + failure(s));
      for (const auto& c : lc.circuits())
        if (c.id() == circuit) path = c.zkey_path();
      if (path.empty()) return report_error("--circuit: \"" + circuit + "\" is not registered with the daemon");
    }
    auto curve = formats::detect_curve(path);
    if (!curve) return report_error(curve.error());
    auto c = with_curve(*curve, [&]<class C>() { return make_checker<C>(path); });
    if (!c) return report_error(c.error());
    check = std::move(*c);
  }

  auto request = [&](uint64_t i) {
    v1::SubmitProofRequest r;
    r.set_circuit(circuit);
    r.set_priority((*mix)[i % mix->size()]);
    if (by_path)
      r.add_partitions()->set_path(wtns[i % wtns.size()]);
    else if (input_json)
      r.add_partitions()->set_input_json(wtns[i % wtns.size()]);
    else
      r.add_partitions()->set_wtns(wtns[i % wtns.size()]);
    return r;
  };
  tally t;
  // Counts a finished job: DONE with one proof that verifies, or a failure naming why.
  auto finish = [&](const v1::ProofResult& r, v1::Priority p, double ms) {
    if (r.state() != v1::DONE || r.proofs_size() != 1)
      return t.fail(p, "job " + std::to_string(r.job_id()) + " ended " + std::to_string(r.state()) + ": " + r.error());
    if (check) {
      auto why = check(r.proofs(0));
      if (!why.empty()) return t.fail(p, "job " + std::to_string(r.job_id()) + ": " + why);
    }
    t.ok(p, ms, static_cast<bool>(check), r);
  };
  auto ms_since = [](clock_type::time_point a) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - a).count();
  };
  // Stress with --warmup: proofs that end after it, and the daemon's status read when it ends.
  const auto warm_end = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                                std::chrono::duration<double>(stress->parsed() ? warmup_s : 0));
  std::atomic<uint64_t> done_after_warmup{0};
  auto prove_one = [&](uint64_t i) {
    const auto req = request(i);
    v1::ProofResult r;
    grpc::ClientContext ctx;
    const auto t0 = clock_type::now();
    auto s = stub->Prove(&ctx, req, &r);
    if (!s.ok()) return t.fail(req.priority(), "Prove: " + s.error_message());
    finish(r, req.priority(), ms_since(t0));
    if (r.state() == v1::DONE && clock_type::now() >= warm_end) ++done_after_warmup;
  };
  auto run_threads = [&](uint64_t n, const std::function<void(uint64_t)>& body) {
    std::vector<std::thread> ts;
    for (uint64_t k = 0; k < n; ++k) ts.emplace_back(body, k);
    for (auto& th : ts) th.join();
  };

  // The daemon's status around the run, for its memory and GPU lines (status_summary.hpp).
  auto daemon_status = [&]() -> result<std::string> {
    v1::GetStatusResponse resp;
    grpc::ClientContext ctx;
    auto s = stub->GetStatus(&ctx, {}, &resp);
    if (!s.ok()) return status(errc::unavailable, "daemon: GetStatus: " + failure(s));
    return resp.json();
  };
  auto status_before = daemon_status();
  // A daemon that cannot be reached, or refuses this client's credentials, is said once, before a
  // run in which every proof would fail with it.
  if (!status_before) return report_error(status_before.error().message());
  const auto start = clock_type::now();
  // The status at the end of the warm-up, read beside the run.
  std::thread warm_reader;
  if (stress->parsed() && warmup_s > 0)
    warm_reader = std::thread([&] {
      std::this_thread::sleep_until(warm_end);
      status_before = daemon_status();
    });
  const char* mode = "single";
  if (single->parsed()) {
    for (uint64_t i = 0; i < count; ++i) prove_one(i);
  } else if (batch->parsed()) {
    mode = "batch";
    std::vector<uint64_t> ids(count, 0);
    std::vector<char> submitted(count, 0);  // not vector<bool>: its bits share words across threads
    const uint64_t threads = std::min(concurrency, count);
    run_threads(threads, [&](uint64_t k) {
      for (uint64_t i = k; i < count; i += threads) {
        const auto req = request(i);
        v1::SubmitProofResponse resp;
        grpc::ClientContext ctx;
        auto s = stub->SubmitProof(&ctx, req, &resp);
        if (!s.ok()) {
          t.fail(req.priority(), "SubmitProof: " + s.error_message());
          continue;
        }
        ids[i] = resp.job_id();
        submitted[i] = 1;  // distinct elements per thread; read only after the join
      }
    });
    run_threads(threads, [&](uint64_t k) {
      for (uint64_t i = k; i < count; i += threads) {
        if (!submitted[i]) continue;
        v1::AwaitProofRequest req;
        req.set_job_id(ids[i]);
        v1::ProofResult r;
        grpc::ClientContext ctx;
        const auto p = request(i).priority();
        auto s = stub->AwaitProof(&ctx, req, &r);
        if (!s.ok()) {
          t.fail(p, "AwaitProof: " + s.error_message());
          continue;
        }
        finish(r, p, static_cast<double>(r.finished_unix_ms() - r.submitted_unix_ms()));
      }
    });
  } else {
    mode = "stress";
    const auto stop = start + std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(duration_s));
    std::atomic<uint64_t> next{0};
    run_threads(concurrency, [&](uint64_t) {
      while (clock_type::now() < stop) prove_one(next.fetch_add(1));
    });
  }
  const double wall = std::chrono::duration<double>(clock_type::now() - start).count();
  const auto status_after = daemon_status();
  if (warm_reader.joinable()) warm_reader.join();
  print_report(mode, t, wall, static_cast<bool>(check));
  double measured_s = wall;  // what the daemon's lines below cover
  if (stress->parsed() && warmup_s > 0) {
    measured_s = std::chrono::duration<double>(clock_type::now() - warm_end).count();
    std::printf("after warm-up (%.1f s): %llu proofs in %.3f s, throughput=%.2f proofs/s\n", warmup_s,
                static_cast<unsigned long long>(done_after_warmup.load()), measured_s,
                static_cast<double>(done_after_warmup.load()) / measured_s);
  }
  auto hw = !status_before ? result<std::vector<std::string>>(status_before.error())
            : !status_after ? result<std::vector<std::string>>(status_after.error())
                            : service::hardware_summary(*status_before, *status_after, measured_s);
  if (hw)
    for (const auto& line : *hw) std::printf("%s\n", line.c_str());
  else
    std::printf("hardware: unknown (%s)\n", hw.error().to_string().c_str());
  uint64_t failed = 0;
  for (const auto& [p, n] : t.failed) failed += n;
  return failed == 0 ? exit_ok : exit_failure;
}

}  // namespace cuzk::apps
