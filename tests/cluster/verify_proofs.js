// SPDX-License-Identifier: MIT OR Apache-2.0
// Verifies every proof in a directory with snarkjs's library, in one process: the cluster test's
// check (src/service/daemon_cluster_test.cpp) that what the daemons returned verifies under snarkjs.
//
// usage: node verify_proofs.js <snarkjs module dir> <verification_key.json> <dir>
// Each file in <dir> is what `cuzk await` printed: a JSON document with "proof" and "publicSignals".
// Prints "verified N of N" and exits 0 when all verify; names each one that does not and exits 1.
"use strict";
const fs = require("fs");
const path = require("path");

async function main() {
  const [snarkjsDir, vkPath, dir] = process.argv.slice(2);
  const snarkjs = require(snarkjsDir);
  const vk = JSON.parse(fs.readFileSync(vkPath, "utf8"));
  const files = fs.readdirSync(dir).sort();
  let good = 0;
  for (const f of files) {
    const text = fs.readFileSync(path.join(dir, f), "utf8");
    let ok = false;
    try {
      const doc = JSON.parse(text.slice(text.indexOf("{")));
      ok = await snarkjs.groth16.verify(vk, doc.publicSignals, doc.proof);
    } catch (e) {
      console.log(f + ": " + e.message);
    }
    if (ok) good++;
    else console.log(f + ": does not verify");
  }
  console.log("verified " + good + " of " + files.length);
  process.exit(good === files.length && files.length > 0 ? 0 : 1);
}

main().catch((e) => {
  console.log(e.stack || String(e));
  process.exit(1);
});
