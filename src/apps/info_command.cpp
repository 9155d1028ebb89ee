// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/info_command.hpp"

#include <CLI/CLI.hpp>

#include <array>
#include <bit>
#include <cstdio>
#include <fstream>

#include "apps/progress.hpp"
#include "formats/file_io.hpp"
#include "formats/proof.hpp"
#include "formats/public_signals.hpp"
#include "formats/r1cs.hpp"
#include "formats/snarkjs_json.hpp"
#include "formats/verification_key.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"

namespace cuzk::apps {

void info_command::add_to(CLI::App& app) {
  sub = app.add_subcommand("info", "what is in a .zkey, .r1cs, .wtns or snarkjs JSON file");
  sub->add_option("file", file, "the file")->required();
  sub->add_flag("--check", check, "also check every point, coefficient and witness value (linear in the file)");
}

namespace {

std::string curve_label(formats::curve_id id) {
  return std::string(formats::curve_name(id)) + " (snarkjs: " + formats::snarkjs_curve_name(id) + ")";
}

void print_sections(const formats::binfile& f, const char* const* names, std::size_t n_names) {
  std::printf("  sections (file order):\n");
  for (const auto& s : f.sections()) {
    const char* name = s.type >= 1 && s.type <= n_names ? names[s.type - 1] : "(unknown, ignored)";
    std::printf("    %2u %-24s offset %12llu  size %12llu  (%s)\n", s.type, name,
                static_cast<unsigned long long>(s.offset), static_cast<unsigned long long>(s.size),
                human_bytes(static_cast<double>(s.size)).c_str());
  }
}

// Runs a --check step and prints its outcome.
int checked(step_reporter& rep, const std::string& what, const std::function<status()>& body) {
  const status s = rep.step("check: " + what, body);
  if (!s) return report_error(s);
  std::printf("  check: %s: ok\n", what.c_str());
  return exit_ok;
}

template <class C>
int zkey_info(const info_command& cmd, step_reporter& rep) {
  auto zk = rep.step("load: map the zkey", [&] { return formats::zkey<C>::open(cmd.file); });
  if (!zk) return report_error(zk.error());
  const auto& f = zk->file();
  std::printf("%s: snarkjs Groth16 proving key (zkey v%u), %s, %s\n", cmd.file.c_str(), f.version(),
              curve_label(formats::curve_id_of<C>).c_str(), human_bytes(static_cast<double>(f.bytes().size())).c_str());
  std::size_t per_matrix[2] = {0, 0};
  for (const auto& r : zk->coef_records()) per_matrix[r.matrix == 0 ? 0 : 1]++;
  std::printf("  nVars %u, nPublic %u, domain 2^%d = %u\n", zk->n_vars(), zk->n_public(),
              std::countr_zero(zk->domain_size()), zk->domain_size());
  std::printf("  coefficients %zu (A %zu, including the %u public-input rows; B %zu)\n", zk->coef_records().size(),
              per_matrix[0], zk->n_public() + 1, per_matrix[1]);
  std::printf("  points: IC %zu, A %zu, B1 %zu, B2 %zu (G2), C %zu, H %zu\n", zk->ic().size(), zk->a().size(),
              zk->b1().size(), zk->b2().size(), zk->c().size(), zk->h().size());
  std::printf("  contributions %u\n", zk->n_contributions());
  if (zk->copied_bytes() != 0)
    std::printf("  %s of misaligned point sections copied at open\n",
                human_bytes(static_cast<double>(zk->copied_bytes())).c_str());
  static const char* const names[] = {"protocol", "header", "IC", "coefs", "A", "B1", "B2 (G2)", "C", "H",
                                      "contributions"};
  print_sections(f, names, std::size(names));
  if (!cmd.check) return exit_ok;
  if (int rc = checked(rep, "coefficient records in range", [&] { return zk->validate_coefs(); }); rc != exit_ok)
    return rc;
  return checked(rep, "every point canonical, on the curve and in the subgroup",
                 [&] { return zk->validate_points(formats::subgroup_check::check); });
}

int r1cs_info(const info_command& cmd, step_reporter& rep) {
  auto r = rep.step("load: map and check the r1cs", [&] { return formats::r1cs::open(cmd.file); });
  if (!r) return report_error(r.error());
  const auto& h = r->header();
  std::printf("%s: circom constraint system (r1cs v%u), %s, %s\n", cmd.file.c_str(), r->file().version(),
              curve_label(h.curve).c_str(), human_bytes(static_cast<double>(r->file().bytes().size())).c_str());
  std::size_t nnz[3] = {0, 0, 0};
  for (const auto& c : r->constraints()) {
    nnz[0] += c.a.size();
    nnz[1] += c.b.size();
    nnz[2] += c.c.size();
  }
  const std::size_t rows = std::size_t{h.n_constraints} + h.n_public() + 1;
  std::printf("  constraints %u, wires %u (public outputs %u, public inputs %u, private inputs %u), labels %llu\n",
              h.n_constraints, h.n_wires, h.n_pub_out, h.n_pub_in, h.n_prv_in,
              static_cast<unsigned long long>(h.n_labels));
  std::printf("  non-zero coefficients: A %zu, B %zu, C %zu\n", nnz[0], nnz[1], nnz[2]);
  std::printf("  Groth16 domain: 2^%d (constraints + public + 1 = %zu)\n", std::countr_zero(std::bit_ceil(rows)),
              rows);
  static const char* const names[] = {"header", "constraints", "wire-to-label map", "custom gates list",
                                      "custom gates uses"};
  print_sections(r->file(), names, std::size(names));
  if (cmd.check) std::printf("  check: every wire id < nWires and every coefficient < r (done at open): ok\n");
  return exit_ok;
}

int wtns_info(const info_command& cmd, step_reporter& rep) {
  auto w = rep.step("load: map the witness", [&] { return formats::wtns::open(cmd.file); });
  if (!w) return report_error(w.error());
  std::printf("%s: witness (wtns v%u), %s, %s\n", cmd.file.c_str(), w->file().version(),
              curve_label(w->header().curve).c_str(), human_bytes(static_cast<double>(w->file().bytes().size())).c_str());
  std::printf("  values %u (w[0] = %s)\n", w->header().n_witness,
              w->size() == 0 ? "none" : w->value(0).to_decimal().c_str());
  static const char* const names[] = {"header", "values"};
  print_sections(w->file(), names, std::size(names));
  if (!cmd.check) return exit_ok;
  return checked(rep, "every value below r", [&] { return w->validate(); });
}

// A snarkjs JSON file: the kind from its shape, the curve from its "curve" field (public.json has
// none: its values are checked against both scalar fields).
int json_info(const info_command& cmd) {
  auto text = formats::snarkjs_json::read_file(cmd.file);
  if (!text) return report_error(text.error());
  auto j = formats::snarkjs_json::parse(*text, cmd.file);
  if (!j) return report_error(j.error());
  if (j->is_array()) {
    std::printf("%s: public signals (public.json), %zu values\n", cmd.file.c_str(), j->size());
    if (!cmd.check) return exit_ok;
    auto bn = formats::public_from_json<bn254>(*text, cmd.file);
    auto bls = formats::public_from_json<bls12_381>(*text, cmd.file);
    if (!bn && !bls) return report_error(bn.error());
    std::printf("  check: decimal strings below r of %s: ok\n", bn ? "bn254 (and so of bls12-381)" : "bls12-381");
    return exit_ok;
  }
  const bool is_proof = j->is_object() && j->contains("pi_a");
  const bool is_vk = j->is_object() && j->contains("vk_alpha_1");
  if (!is_proof && !is_vk)
    return report_error(cmd.file + ": not a zkey, r1cs or wtns file, nor a snarkjs proof, public or verification key JSON");
  auto curve = formats::detect_json_curve(cmd.file);
  if (!curve) return report_error(curve.error());
  std::printf("%s: %s, %s\n", cmd.file.c_str(), is_proof ? "Groth16 proof (proof.json)" : "verification key",
              curve_label(*curve).c_str());
  if (is_vk && j->contains("nPublic")) std::printf("  nPublic %s\n", (*j)["nPublic"].dump().c_str());
  if (!cmd.check) return exit_ok;
  const status s = with_curve(*curve, [&]<class C>() -> status {
    if (is_proof) {
      auto p = formats::proof_from_json<C>(*text, cmd.file);
      return p ? status::ok() : p.error();
    }
    auto v = formats::verification_key_from_json<C>(*text, cmd.file);
    return v ? status::ok() : v.error();
  });
  if (!s) return report_error(s);
  std::printf("  check: every point canonical, on the curve and in the subgroup: ok\n");
  return exit_ok;
}

}  // namespace

int info_command::run(const global_options& g) const {
  step_reporter rep(g.verbose);
  auto head = formats::read_file_head(file, 4);
  if (!head) return report_error(head.error());
  if (head->empty()) return report_error(file + ": empty file");
  const std::string m = *head;
  if (m == "zkey") {
    auto curve = formats::detect_curve(file);
    if (!curve) return report_error(curve.error());
    return with_curve(*curve, [&]<class C>() { return zkey_info<C>(*this, rep); });
  }
  if (m == "r1cs") return r1cs_info(*this, rep);
  if (m == "wtns") return wtns_info(*this, rep);
  const auto first = m.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (m[first] == '{' || m[first] == '[')) return json_info(*this);
  return report_error(file + ": unknown file kind: expected the magic bytes \"zkey\", \"r1cs\" or \"wtns\", or "
                      "snarkjs JSON");
}

}  // namespace cuzk::apps
