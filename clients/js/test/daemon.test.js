// SPDX-License-Identifier: MIT OR Apache-2.0
'use strict';
// cuzk-client against a running daemon: clients/test.sh starts one and sets CUZK_TEST_SOCKET,
// CUZK_TEST_DATA (tests/data/snarkjs/bn128), CUZK_TEST_WITNESS_DIR (one of its witness_dirs, holding
// circuit.wtns), CUZK_TEST_TMP and SNARKJS; for input JSON, CUZK_TEST_MATRIX_{ZKEY,VK,WASM,INPUT,PUBLIC}:
// the witness tests' matrix circuit, a key for it, its wasm, its input.json and the public signals of
// snarkjs's witness of that input.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const cuzk = require('..');

const env = {};
for (const k of ['CUZK_TEST_SOCKET', 'CUZK_TEST_DATA', 'CUZK_TEST_WITNESS_DIR', 'CUZK_TEST_TMP', 'SNARKJS']) env[k] = process.env[k];
const skip = Object.values(env).some((v) => !v) && 'run by clients/test.sh, which starts a daemon';
const CIRCUIT = 'js-bn128';
const socket = env.CUZK_TEST_SOCKET;
const data = env.CUZK_TEST_DATA;

function verify(name, proof, publicSignals) {
  const d = path.join(env.CUZK_TEST_TMP, `js-${name}`);
  fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(d, 'proof.json'), JSON.stringify(proof));
  fs.writeFileSync(path.join(d, 'public.json'), JSON.stringify(publicSignals));
  // Throws (and so fails the test) when snarkjs exits non-zero.
  const out = execFileSync(env.SNARKJS, ['groth16', 'verify', path.join(data, 'verification_key.json'),
    path.join(d, 'public.json'), path.join(d, 'proof.json')], { encoding: 'utf8', timeout: 120000 });
  assert.match(out, /OK!/, `snarkjs groth16 verify (${name}): ${out}`);
  assert.deepStrictEqual(publicSignals, JSON.parse(fs.readFileSync(path.join(data, 'public.json'), 'utf8')));
}

test('against the daemon', { skip }, async (t) => {
  const client = new cuzk.Client({ socket });
  t.after(() => client.close());
  await client.register(CIRCUIT, path.join(data, 'circuit.zkey'));
  assert.ok((await client.circuits()).some((c) => c.id === CIRCUIT));

  await t.test('groth16.prove with the witness bytes', async () => {
    const wtns = fs.readFileSync(path.join(data, 'circuit.wtns'));
    const { proof, publicSignals } = await cuzk.groth16.prove(CIRCUIT, wtns, { socket, timeoutMs: 120000 });
    verify('bytes', proof, publicSignals);
  });

  await t.test('groth16.prove by path', async () => {
    const wtns = path.join(env.CUZK_TEST_WITNESS_DIR, 'circuit.wtns');
    const { proof, publicSignals } = await cuzk.groth16.prove(CIRCUIT, wtns, { socket, byPath: true });
    verify('path', proof, publicSignals);
  });

  await t.test('submit, await, cancel of an ended job', async () => {
    const jobId = await client.submit(CIRCUIT, [path.join(data, 'circuit.wtns')], { priority: 'high', requestId: 'js-1' });
    assert.strictEqual(typeof jobId, 'number');
    assert.strictEqual(await client.submit(CIRCUIT, [path.join(data, 'circuit.wtns')], { requestId: 'js-1' }), jobId);
    const r = await client.await(jobId, { timeoutMs: 120000 });
    assert.strictEqual(r.state, 'DONE');
    assert.strictEqual(r.jobId, jobId);
    assert.strictEqual(r.proofs.length, 1);
    verify('submit', r.proof, r.publicSignals);
    await assert.rejects(client.cancel(jobId), (e) => e instanceof cuzk.CuzkError &&
      e.code === 'FAILED_PRECONDITION' && /CancelProof/.test(e.message));
  });

  await t.test('an unknown circuit is a clear error', async () => {
    await assert.rejects(cuzk.groth16.prove('no-such-circuit', path.join(data, 'circuit.wtns'), { socket }),
      (e) => e instanceof cuzk.CuzkError && e.code === 'NOT_FOUND' && /no-such-circuit/.test(e.message) &&
        /SubmitProof/.test(e.message));
  });

  await t.test('an unknown job', async () => {
    await assert.rejects(client.await(987654321, { timeoutMs: 5000 }), (e) => e.code === 'NOT_FOUND');
  });

  await t.test('a witness file that is not there', async () => {
    await assert.rejects(client.submit(CIRCUIT, '/nonexistent/x.wtns'),
      (e) => e instanceof cuzk.CuzkError && /\/nonexistent\/x\.wtns/.test(e.message));
  });

  await t.test('status', async () => {
    assert.strictEqual(typeof (await client.status()), 'object');
  });

  await t.test('no daemon on the socket', async () => {
    const none = new cuzk.Client({ socket: path.join(env.CUZK_TEST_TMP, 'nothing.sock') });
    try {
      await assert.rejects(none.status(), (e) => e.code === 'UNAVAILABLE' && /nothing\.sock/.test(e.message));
    } finally {
      none.close();
    }
  });
});

const matrix = {};
for (const k of ['ZKEY', 'VK', 'WASM', 'INPUT', 'PUBLIC']) matrix[k] = process.env[`CUZK_TEST_MATRIX_${k}`];
const skipInputs = skip || (Object.values(matrix).some((v) => !v) && 'run by clients/test.sh, with the matrix circuit');

test('input JSON, for a circuit registered with its wasm', { skip: skipInputs }, async (t) => {
  const client = new cuzk.Client({ socket });
  t.after(() => client.close());
  await client.register('js-matrix', matrix.ZKEY, { wasmPath: matrix.WASM });
  assert.ok((await client.circuits()).some((c) => c.id === 'js-matrix' && c.wasm_path === matrix.WASM));
  const input = JSON.parse(fs.readFileSync(matrix.INPUT, 'utf8'));

  await t.test('groth16.fullProve, a BigInt among the inputs', async () => {
    const { proof, publicSignals } = await cuzk.groth16.fullProve({ ...input, k: 11n }, 'js-matrix', { socket });
    const d = path.join(env.CUZK_TEST_TMP, 'js-inputs');
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, 'proof.json'), JSON.stringify(proof));
    fs.writeFileSync(path.join(d, 'public.json'), JSON.stringify(publicSignals));
    const out = execFileSync(env.SNARKJS, ['groth16', 'verify', matrix.VK, path.join(d, 'public.json'),
      path.join(d, 'proof.json')], { encoding: 'utf8', timeout: 120000 });
    assert.match(out, /OK!/);
    assert.deepStrictEqual(publicSignals, JSON.parse(fs.readFileSync(matrix.PUBLIC, 'utf8')));
  });

  await t.test('a missing input fails that job with the message; the next proves', async () => {
    const { k, ...missing } = input;
    await assert.rejects(client.prove('js-matrix', missing), (e) => e instanceof cuzk.CuzkError &&
      /not all inputs are given/.test(e.message));
    assert.strictEqual((await client.prove('js-matrix', input)).state, 'DONE');
  });
});

// The daemon's TCP listener with TLS, a client certificate and a token (docs/cluster.md).
const pki = process.env.CUZK_TEST_PKI;
const addr = process.env.CUZK_TEST_ADDR;
const skipTls = skip || ((!pki || !addr) && 'run by clients/test.sh, which starts a daemon with TLS');

test('over TLS with a client certificate and a token', { skip: skipTls }, async (t) => {
  const opts = {
    addr,
    ca: path.join(pki, 'ca.pem'),
    cert: path.join(pki, 'client.pem'),
    key: path.join(pki, 'client.key'),
    tokenFile: path.join(pki, 'token'),
  };
  // An IP address as the TLS server name makes grpc-js warn (RFC 6066); the test's certificate is for 127.0.0.1.
  const client = new cuzk.Client(opts);
  t.after(() => client.close());
  await client.register('js-tls', path.join(data, 'circuit.zkey'));
  const r = await client.prove('js-tls', [fs.readFileSync(path.join(data, 'circuit.wtns'))]);
  assert.deepStrictEqual(r.publicSignals, JSON.parse(fs.readFileSync(path.join(data, 'public.json'), 'utf8')));

  const noToken = new cuzk.Client({ ...opts, tokenFile: undefined });
  t.after(() => noToken.close());
  await assert.rejects(noToken.status(), (e) => e.code === 'UNAUTHENTICATED' && /bearer token/.test(e.message));
  assert.throws(() => new cuzk.Client({ socket, ca: opts.ca }), /for addr/);
});
