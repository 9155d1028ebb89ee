// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/zkey_command.hpp"

#include <CLI/CLI.hpp>

#include "groth16/alphabeta.hpp"
#include "apps/progress.hpp"
#include "formats/output_files.hpp"
#include "formats/verification_key.hpp"
#include "formats/zkey.hpp"

namespace cuzk::apps {

void zkey_command::add_to(CLI::App& app) {
  sub = app.add_subcommand("zkey", "proving key tools (snarkjs names)");
  sub->require_subcommand(1);
  auto* ex = sub->add_subcommand("export", "export part of a zkey");
  ex->require_subcommand(1);
  export_vk = ex->add_subcommand("verificationkey", "write the verification key, as snarkjs zkey export verificationkey");
  export_vk->add_option("zkey", zkey, "proving key (.zkey)")->required();
  export_vk->add_option("vk", vk, "output: verification_key.json")->required();
}

int zkey_command::run(const global_options& g) const {
  step_reporter rep(g.verbose);
  auto curve = formats::detect_curve(zkey);
  if (!curve) return report_error(curve.error());
  return with_curve(*curve, [&]<class C>() {
    auto out =
        formats::output_files::prepare({{"the verification key output", vk}}, {{"the zkey input", zkey}});
    if (!out) return report_error(out.error());
    auto zk = rep.step("load: map the zkey", [&] { return formats::zkey<C>::open(zkey); });
    if (!zk) return report_error(zk.error());
    const auto key = rep.step("e(alpha, beta)", [&] {
      auto exported = formats::verification_key_of<C>(*zk);
      groth16::add_alphabeta_12(exported);
      return exported;
    });
    const status s = rep.step("write", [&]() -> status {
      CUZK_TRY(formats::write_verification_key_json<C>(out->staging_path(0), key));
      return out->commit();
    });
    if (!s) return report_error(s);
    rep.finish();
    return exit_ok;
  });
}

}  // namespace cuzk::apps
