// SPDX-License-Identifier: MIT OR Apache-2.0
#include "apps/wtns_command.hpp"

#include <CLI/CLI.hpp>

#include "formats/file_io.hpp"
#include "formats/output_files.hpp"

namespace cuzk::apps {

void wtns_command::add_to(CLI::App& app) {
  auto* sub = app.add_subcommand("wtns", "witness files (as snarkjs wtns)");
  sub->require_subcommand(1);
  calculate = sub->add_subcommand("calculate", "the witness of an input.json, as snarkjs wtns calculate makes it");
  calculate->add_option("wasm", wasm, "the circuit's witness code (circuit.wasm, from circom --wasm)")->required();
  calculate->add_option("input", input, "the circuit's inputs (input.json)")->required();
  calculate->add_option("wtns", wtns, "output: the witness (.wtns)")->required();
  witness.add_to(*calculate);
}

int wtns_command::run(const global_options& g) const {
  step_reporter rep(g.verbose);
  rep.note("cuzk wtns calculate " + wasm + " " + input);
  auto out = formats::output_files::prepare({{"the witness output", wtns}},
                                            {{"the wasm input", wasm}, {"the input JSON", input}});
  if (!out) return report_error(out.error());
  auto bytes = witness_from_input(wasm, input, witness, rep);
  if (!bytes) return report_error(bytes.error());
  // Not flushed to the disk: the .wtns (33 MB for a million wires) is recomputed from the wasm and
  // input.json, as snarkjs and circom's generator leave theirs unflushed; fsync took 0.03 s, a
  // tenth of a cached calculation (docs/witness.md, 'Measured').
  const status written = rep.step("write the witness", [&]() -> status {
    CUZK_TRY(formats::write_file_atomically(out->staging_path(0),
                                            std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()),
                                            formats::flush_to_disk::no));
    return out->commit();
  });
  if (!written) return report_error(written);
  rep.finish();
  return exit_ok;
}

}  // namespace cuzk::apps
