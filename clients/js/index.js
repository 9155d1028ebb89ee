// SPDX-License-Identifier: MIT OR Apache-2.0
'use strict';
// A client for the cuzk daemon's gRPC API (proto/cuzk/v1/proving.proto, loaded at run time).
//
//   const cuzk = require('cuzk-client');
//   const { proof, publicSignals } = await cuzk.groth16.fullProve({ a: 3, b: 11 }, 'multiplier');
//   const { proof, publicSignals } = await cuzk.groth16.prove('multiplier', fs.readFileSync('circuit.wtns'));
//
// A witness is a .wtns file: a Buffer of its bytes, or a path (read here and sent as bytes, or
// with { byPath: true } sent as a path for the daemon to read: it must lie under one of the
// daemon's witness_dirs); or the circuit's inputs as an object, as input.json holds them (numbers,
// BigInts or decimal strings), for a circuit registered with its wasm: the daemon computes the
// witness, as snarkjs.groth16.fullProve does with the wasm.

const fs = require('fs');
const os = require('os');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const SYSTEM_SOCKET = '/var/lib/cuzk/cuzk.sock';
const SOCKET_FILE = 'cuzk.sock';
const PRIORITIES = ['LOW', 'NORMAL', 'HIGH', 'CRITICAL'];

// The proto travels with a packed package (npm pack copies it to ./proto); in the repository it is
// ../../proto.
function protoRoot() {
  for (const root of [path.join(__dirname, 'proto'), path.join(__dirname, '..', '..', 'proto')]) {
    if (fs.existsSync(path.join(root, 'cuzk', 'v1', 'proving.proto'))) return root;
  }
  throw new CuzkError(`cuzk-client: proto/cuzk/v1/proving.proto not found next to ${__dirname}`);
}

let service = null;
function ProvingEngine() {
  if (!service) {
    const def = protoLoader.loadSync('cuzk/v1/proving.proto', {
      includeDirs: [protoRoot()],
      keepCase: true, // the proto's field names (job_id, proof_json)
      longs: Number, // job ids and times: far below 2^53
      enums: String,
      defaults: true,
      oneofs: true,
    });
    service = grpc.loadPackageDefinition(def).cuzk.v1.ProvingEngine;
  }
  return service;
}

// Every error this package throws. For a refused call: rpc (the method), code (the gRPC status
// name: 'NOT_FOUND' for an unknown circuit or job, 'UNAVAILABLE' when no daemon answers, ...) and
// details (the daemon's message). For a job that did not succeed: result (its state and error).
class CuzkError extends Error {
  constructor(message, fields = {}) {
    super(message);
    this.name = 'CuzkError';
    Object.assign(this, fields);
  }
}

// The daemon's default state directory, by the rule of src/service/state_dir.hpp.
function stateDir() {
  const usable = (d) => {
    let p = d;
    for (;;) {
      if (fs.existsSync(p)) {
        try {
          if (!fs.statSync(p).isDirectory()) return false;
          fs.accessSync(p, fs.constants.W_OK | fs.constants.X_OK);
          return true;
        } catch {
          return false;
        }
      }
      const parent = path.dirname(p);
      if (parent === p) return false;
      p = parent;
    }
  };
  const xdg = process.env.XDG_STATE_HOME;
  const home = process.env.HOME;
  if (xdg && path.isAbsolute(xdg)) {
    const d = path.join(xdg, 'cuzk');
    if (usable(d)) return path.normalize(d);
  }
  if (home && path.isAbsolute(home) && fs.existsSync(home) && fs.statSync(home).isDirectory()) {
    const d = path.join(home, '.local', 'state', 'cuzk');
    if (usable(d)) return path.normalize(d);
  }
  return path.join(process.cwd(), 'cuzk-state');
}

// Where the `cuzk` client verbs connect with no --socket: the user's daemon's socket when it
// exists, else the packaged service's when that exists, else the user's.
function defaultSocket() {
  const user = path.join(stateDir(), SOCKET_FILE);
  if (fs.existsSync(user)) return user;
  if (fs.existsSync(SYSTEM_SOCKET)) return SYSTEM_SOCKET;
  return user;
}

function priority(p) {
  if (p === undefined || p === null) return 'PRIORITY_UNSPECIFIED';
  const name = String(p).toUpperCase();
  if (!PRIORITIES.includes(name)) {
    throw new CuzkError(`priority: expected LOW, NORMAL, HIGH or CRITICAL, found ${JSON.stringify(p)}`);
  }
  return name;
}

// BigInts (snarkjs's inputs often are) as decimal strings, which circom reads exactly.
function inputJson(inputs, i) {
  try {
    return JSON.stringify(inputs, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
  } catch (e) {
    throw new CuzkError(`witness ${i}: the inputs are not JSON: ${e.message}`, { cause: e });
  }
}

function witness(w, byPath, i) {
  if (w !== null && typeof w === 'object' && !Buffer.isBuffer(w) && !(w instanceof Uint8Array)) {
    return { input_json: inputJson(w, i) };
  }
  if (Buffer.isBuffer(w) || w instanceof Uint8Array) return { wtns: Buffer.from(w.buffer, w.byteOffset, w.byteLength) };
  if (typeof w === 'string') {
    const abs = path.resolve(w);
    if (byPath) return { path: abs };
    try {
      return { wtns: fs.readFileSync(abs) };
    } catch (e) {
      throw new CuzkError(`witness ${i}: cannot read ${abs}: ${e.message}`, { cause: e });
    }
  }
  throw new CuzkError(`witness ${i}: expected a Buffer of .wtns bytes, a path or an object of inputs, found ${typeof w}`);
}

// A ProofResult with each partition's proof.json and public.json parsed: proofs is
// [{ proof, publicSignals }], one per partition; proof and publicSignals are the first one's.
function parseResult(m) {
  const proofs = m.proofs.map((p, i) => {
    try {
      return { proof: JSON.parse(p.proof_json), publicSignals: JSON.parse(p.public_json) };
    } catch (e) {
      throw new CuzkError(`cuzk job ${m.job_id}: partition ${i}: the daemon's proof JSON does not parse: ${e.message}`);
    }
  });
  return {
    jobId: m.job_id,
    state: m.state,
    circuit: m.circuit,
    requestId: m.request_id,
    error: m.error,
    proofs,
    proof: proofs.length ? proofs[0].proof : undefined,
    publicSignals: proofs.length ? proofs[0].publicSignals : undefined,
    timings: m.timings,
    ranOn: m.ran_on,
    deadlineMissed: m.deadline_missed,
  };
}

function readOptionFile(option, file) {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new CuzkError(`Client: ${option}: cannot read ${file}: ${e.message}`);
  }
}

// TLS for a daemon whose config sets tls_cert (docs/cluster.md, "Remote access"): ca (the CA that
// signed it, PEM; absent: the system's), cert and key (a client certificate its tls_client_ca
// signed), tokenFile (its auth_token_file's token, sent as "authorization: Bearer ...").
function tlsCredentials({ ca, cert, key, tokenFile }) {
  if (Boolean(cert) !== Boolean(key)) {
    throw new CuzkError('Client: cert and key go together (a client certificate and its private key)');
  }
  const creds = grpc.credentials.createSsl(
    ca ? readOptionFile('ca', ca) : null,
    key ? readOptionFile('key', key) : null,
    cert ? readOptionFile('cert', cert) : null,
  );
  if (!tokenFile) return creds;
  const token = readOptionFile('tokenFile', tokenFile).toString().split('\n', 1)[0].trim();
  if (!token) throw new CuzkError(`Client: tokenFile: ${tokenFile}: expected the token on its first line, found nothing`);
  const bearer = grpc.credentials.createFromMetadataGenerator((_params, callback) => {
    const md = new grpc.Metadata();
    md.add('authorization', `Bearer ${token}`);
    callback(null, md);
  });
  return grpc.credentials.combineChannelCredentials(creds, bearer);
}

class Client {
  // { socket: a Unix socket path } or { addr: 'host:port' } (TCP); neither: defaultSocket(). For a
  // TCP listener with TLS: ca, cert and key, tokenFile (paths, as `cuzk --tls-ca --tls-cert
  // --tls-key --token-file`); any of them turns TLS on.
  constructor({ socket, addr, ca, cert, key, tokenFile } = {}) {
    if (socket && addr) throw new CuzkError('Client: give socket or addr, not both');
    const tls = Boolean(ca || cert || key || tokenFile);
    if (tls && !addr) throw new CuzkError('Client: ca, cert, key and tokenFile are for addr (the Unix socket is never TLS)');
    this.target = addr || `unix:${path.resolve(socket || defaultSocket())}`;
    const Engine = ProvingEngine();
    const creds = tls ? tlsCredentials({ ca, cert, key, tokenFile }) : grpc.credentials.createInsecure();
    this.stub = new Engine(this.target, creds, {
      'grpc.max_send_message_length': -1,
      'grpc.max_receive_message_length': -1,
    });
  }

  close() {
    this.stub.close();
  }

  call(rpc, request, timeoutS) {
    const opts = timeoutS === undefined ? {} : { deadline: new Date(Date.now() + timeoutS * 1000) };
    return new Promise((resolve, reject) => {
      this.stub[rpc](request, opts, (err, resp) => {
        if (!err) return resolve(resp);
        const code = grpc.status[err.code] || String(err.code);
        reject(new CuzkError(`cuzk ${rpc} (${this.target}): ${code}: ${err.details || err.message}`,
          { rpc, code, details: err.details, target: this.target }));
      });
    });
  }

  // Registers a circuit id for a .zkey on the daemon's disk (made absolute here). With wasmPath
  // (circom's circuit.wasm, on the daemon's disk) the circuit takes its inputs as an object; the
  // daemon compiles the wasm now, the first time it sees it.
  async register(circuit, zkeyPath, { priority: p, replace = false, wasmPath = '' } = {}) {
    await this.call('RegisterCircuit', {
      id: circuit, zkey_path: path.resolve(zkeyPath), default_priority: priority(p), replace,
      wasm_path: wasmPath ? path.resolve(wasmPath) : '',
    });
  }

  async circuits() {
    return (await this.call('ListCircuits', {})).circuits;
  }

  // Queues a job; resolves to its id once the daemon has stored it. witnesses: one per partition
  // (or a single one).
  async submit(circuit, witnesses, { priority: p, requestId = '', deadlineUnixMs = 0, byPath = false } = {}) {
    const list = Array.isArray(witnesses) ? witnesses : [witnesses];
    if (!list.length) throw new CuzkError('submit: no witnesses');
    const partitions = list.map((w, i) => witness(w, byPath, i));
    const r = await this.call('SubmitProof', {
      circuit, partitions, priority: priority(p), request_id: requestId, deadline_unix_ms: deadlineUnixMs,
    });
    return r.job_id;
  }

  // Waits for the job to end; resolves to its result (parseResult), rejects with a CuzkError
  // holding the result when it failed, was cancelled, or timeoutMs passed first (code 'TIMEOUT').
  async await(jobId, { timeoutMs = 0 } = {}) {
    // The RPC's own deadline leaves the daemon time to answer with the job's state.
    const m = await this.call('AwaitProof', { job_id: jobId, timeout_ms: timeoutMs },
      timeoutMs ? timeoutMs / 1000 + 30 : undefined);
    const r = parseResult(m);
    if (m.state === 'DONE') return r;
    if (m.state === 'FAILED' || m.state === 'CANCELLED') {
      throw new CuzkError(`cuzk job ${m.job_id} (${m.circuit}) ${m.state}: ${m.error}`, { code: m.state, result: r });
    }
    throw new CuzkError(`cuzk job ${m.job_id} still ${m.state} after ${timeoutMs} ms`, { code: 'TIMEOUT', result: r });
  }

  // submit then await.
  async prove(circuit, witnesses, opts = {}) {
    const jobId = await this.submit(circuit, witnesses, opts);
    return this.await(jobId, opts);
  }

  // Cancels a queued or running job (an ended one: code FAILED_PRECONDITION).
  async cancel(jobId) {
    await this.call('CancelProof', { job_id: jobId });
  }

  // The daemon's status document (as HTTP /status serves it), parsed.
  async status() {
    return JSON.parse((await this.call('GetStatus', {})).json);
  }
}

// snarkjs-style: one witness -> { proof, publicSignals }; an array of witnesses (the partitions of
// one job) -> an array of them. opts: socket or addr, priority, requestId, deadlineUnixMs, byPath,
// timeoutMs.
async function prove(circuit, witnesses, opts = {}) {
  const client = new Client(opts);
  try {
    const r = await client.prove(circuit, witnesses, opts);
    return Array.isArray(witnesses) ? r.proofs : r.proofs[0];
  } finally {
    client.close();
  }
}

// As snarkjs.groth16.fullProve(input, wasm, zkey), with the wasm and the key registered with the
// daemon under `circuit`: the inputs -> { proof, publicSignals }. opts as prove's.
async function fullProve(input, circuit, opts = {}) {
  return prove(circuit, input, opts);
}

module.exports = { Client, CuzkError, defaultSocket, groth16: { prove, fullProve } };
