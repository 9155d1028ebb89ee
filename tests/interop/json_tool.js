// SPDX-License-Identifier: MIT OR Apache-2.0
// Small JSON edits and checks for the interop tests, in node because node is what the tests
// already need (snarkjs). One verb per call:
//
//   snarkjs_layout FILE            exit 0 when FILE is byte-identical to JSON.stringify(x, null, 1),
//                                  the way snarkjs writes proof.json, public.json and keys
//   flip_digit FILE OUT PATH       copy FILE to OUT with the last decimal digit of the string at
//                                  PATH (dot-separated, e.g. pi_a.0 or pi_b.1.0) changed (d -> d^1)
//   negate_y FILE OUT CURVE        copy a proof with pi_a's y replaced by q - y: a valid point, a
//                                  wrong proof
//   swap_ac FILE OUT               copy a proof with pi_a and pi_c exchanged
//   bump_public FILE OUT INDEX     copy public.json with signal INDEX increased by one
//   set_public FILE OUT INDEX DEC  copy public.json with signal INDEX set to the decimal DEC
//   same_vk A B                    exit 0 when two verification keys agree on every field but
//                                  vk_alphabeta_12 (which some writers leave out); prints the
//                                  first difference otherwise
//   drop_curve FILE OUT            copy a proof without its "curve" field (as rapidsnark writes it)
'use strict';
const fs = require('fs');

const Q = {
  bn128: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
  bls12381: BigInt('0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab'),
};

const read = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));
const write = (f, x) => fs.writeFileSync(f, JSON.stringify(x, null, 1));
const fail = (msg) => { console.error(msg); process.exit(1); };

function at(obj, path) {
  const keys = path.split('.');
  const last = keys.pop();
  let o = obj;
  for (const k of keys) o = o[k];
  return [o, last];
}

function diff(a, b, where) {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b)) return `${where}: types differ`;
  if (typeof a !== 'object' || a === null) return a === b ? null : `${where}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`;
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.join() !== kb.join()) return `${where}: keys [${ka}] != [${kb}]`;
  for (const k of ka) {
    const d = diff(a[k], b[k], `${where}.${k}`);
    if (d) return d;
  }
  return null;
}

const [verb, ...args] = process.argv.slice(2);
switch (verb) {
  case 'snarkjs_layout': {
    const text = fs.readFileSync(args[0], 'utf8');
    const want = JSON.stringify(JSON.parse(text), null, 1);
    if (text !== want) fail(`${args[0]}: not laid out as snarkjs writes it (JSON.stringify(x, null, 1))`);
    break;
  }
  case 'flip_digit': {
    const x = read(args[0]);
    const [o, k] = at(x, args[2]);
    const s = o[k];
    const d = Number(s[s.length - 1]);
    o[k] = s.slice(0, -1) + String(d ^ 1);
    write(args[1], x);
    break;
  }
  case 'negate_y': {
    const x = read(args[0]);
    x.pi_a[1] = (Q[args[2]] - BigInt(x.pi_a[1])).toString();
    write(args[1], x);
    break;
  }
  case 'swap_ac': {
    const x = read(args[0]);
    [x.pi_a, x.pi_c] = [x.pi_c, x.pi_a];
    write(args[1], x);
    break;
  }
  case 'bump_public': {
    const x = read(args[0]);
    const i = Number(args[2]);
    x[i] = (BigInt(x[i]) + 1n).toString();
    write(args[1], x);
    break;
  }
  case 'set_public': {
    const x = read(args[0]);
    x[Number(args[2])] = args[3];
    write(args[1], x);
    break;
  }
  case 'same_vk': {
    const a = read(args[0]), b = read(args[1]);
    delete a.vk_alphabeta_12;
    delete b.vk_alphabeta_12;
    const d = diff(a, b, 'vk');
    if (d) fail(`${args[0]} and ${args[1]} differ: ${d}`);
    break;
  }
  case 'drop_curve': {
    const x = read(args[0]);
    delete x.curve;
    write(args[1], x);
    break;
  }
  default:
    fail(`json_tool.js: unknown verb ${verb}`);
}
