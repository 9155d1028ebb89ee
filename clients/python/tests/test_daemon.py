# SPDX-License-Identifier: MIT OR Apache-2.0
"""cuzk_client against a running daemon: clients/test.sh starts one and sets
CUZK_TEST_SOCKET (its socket), CUZK_TEST_DATA (tests/data/snarkjs/bn128), CUZK_TEST_WITNESS_DIR (one
of its witness_dirs, holding circuit.wtns), CUZK_TEST_TMP (a scratch folder) and SNARKJS; for input
JSON, CUZK_TEST_MATRIX_{ZKEY,VK,WASM,INPUT,PUBLIC}: the witness tests' matrix circuit, a key for it,
its wasm, its input.json and the public signals of snarkjs's witness of that input."""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import grpc  # noqa: E402

import cuzk_client  # noqa: E402
from cuzk_client import Client, CuzkError, JobFailed, RpcError  # noqa: E402

ENV = {k: os.environ.get(k) for k in ("CUZK_TEST_SOCKET", "CUZK_TEST_DATA", "CUZK_TEST_WITNESS_DIR",
                                      "CUZK_TEST_TMP", "SNARKJS")}
CIRCUIT = "py-bn128"
MATRIX = {k: os.environ.get("CUZK_TEST_MATRIX_" + k) for k in ("ZKEY", "VK", "WASM", "INPUT", "PUBLIC")}


@unittest.skipUnless(all(ENV.values()), "run by clients/test.sh, which starts a daemon")
class AgainstDaemon(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.data = ENV["CUZK_TEST_DATA"]
        cls.client = Client(socket=ENV["CUZK_TEST_SOCKET"])
        cls.client.register(CIRCUIT, os.path.join(cls.data, "circuit.zkey"))
        with open(os.path.join(cls.data, "public.json")) as f:
            cls.public = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()

    def verify(self, name, proof, public):
        """snarkjs groth16 verify with the fixture's verification key."""
        d = os.path.join(ENV["CUZK_TEST_TMP"], "py-" + name)
        os.makedirs(d, exist_ok=True)
        for f, v in (("proof.json", proof), ("public.json", public)):
            with open(os.path.join(d, f), "w") as out:
                json.dump(v, out)
        r = subprocess.run([ENV["SNARKJS"], "groth16", "verify", os.path.join(self.data, "verification_key.json"),
                            os.path.join(d, "public.json"), os.path.join(d, "proof.json")],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, f"snarkjs groth16 verify ({name}): {r.stdout}{r.stderr}")
        self.assertIn("OK!", r.stdout)
        self.assertEqual(public, self.public, f"{name}: public signals differ from public.json")

    def test_registered(self):
        ids = [c["id"] for c in self.client.circuits()]
        self.assertIn(CIRCUIT, ids)

    def test_prove_bytes(self):
        with open(os.path.join(self.data, "circuit.wtns"), "rb") as f:
            wtns = f.read()
        r = self.client.prove(CIRCUIT, [wtns], timeout=120)
        self.assertEqual(r.state, "DONE")
        self.assertEqual(len(r.proofs), 1)
        self.verify("bytes", r.proof, r.public_signals)

    def test_submit_await_by_path(self):
        path = os.path.join(ENV["CUZK_TEST_WITNESS_DIR"], "circuit.wtns")
        job = self.client.submit(CIRCUIT, [path], by_path=True, priority="HIGH", request_id="py-by-path")
        self.assertIsInstance(job, int)
        # The same request id again: the same job.
        self.assertEqual(self.client.submit(CIRCUIT, [path], by_path=True, request_id="py-by-path"), job)
        r = self.client.await_job(job, timeout=120)
        self.assertEqual(r.job_id, job)
        self.verify("path", r.proofs[0]["proof"], r.proofs[0]["publicSignals"])
        # A job that ended cannot be cancelled: the daemon's error, named.
        with self.assertRaises(RpcError) as e:
            self.client.cancel(job)
        self.assertEqual(e.exception.code, grpc.StatusCode.FAILED_PRECONDITION)
        self.assertIn("CancelProof", str(e.exception))

    def test_unknown_circuit(self):
        with self.assertRaises(RpcError) as e:
            self.client.prove("no-such-circuit", os.path.join(self.data, "circuit.wtns"), timeout=60)
        self.assertEqual(e.exception.code, grpc.StatusCode.NOT_FOUND)
        self.assertIn("no-such-circuit", str(e.exception))
        self.assertIn("SubmitProof", str(e.exception))

    def test_unknown_job(self):
        with self.assertRaises(RpcError) as e:
            self.client.await_job(987654321, timeout=5)
        self.assertEqual(e.exception.code, grpc.StatusCode.NOT_FOUND)

    def test_missing_witness_file(self):
        with self.assertRaises(CuzkError) as e:
            self.client.submit(CIRCUIT, ["/nonexistent/x.wtns"])
        self.assertIn("/nonexistent/x.wtns", str(e.exception))

    def test_status(self):
        s = self.client.status()
        self.assertIsInstance(s, dict)

    def test_no_daemon(self):
        with Client(socket=os.path.join(ENV["CUZK_TEST_TMP"], "nothing.sock")) as c:
            with self.assertRaises(RpcError) as e:
                c.status()
        self.assertEqual(e.exception.code, grpc.StatusCode.UNAVAILABLE)
        self.assertIn("nothing.sock", str(e.exception))


@unittest.skipUnless(all(ENV.values()) and all(MATRIX.values()), "run by clients/test.sh, which starts a daemon")
class InputJson(unittest.TestCase):
    """A circuit registered with its wasm: the daemon computes the witness from a dict of inputs."""

    @classmethod
    def setUpClass(cls):
        cls.client = Client(socket=ENV["CUZK_TEST_SOCKET"])
        cls.client.register("py-matrix", MATRIX["ZKEY"], wasm_path=MATRIX["WASM"])
        with open(MATRIX["INPUT"]) as f:
            cls.inputs = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()

    def test_prove_from_inputs(self):
        self.assertIn(MATRIX["WASM"], [c["wasm_path"] for c in self.client.circuits()])
        # A Python int past 2^53 goes as a decimal string, exactly: 11 + r is 11 in the field.
        r_bn254 = 21888242871839275222246405745257275088548364400416034343698204186575808495617
        inputs = dict(self.inputs, k=11 + r_bn254)
        r = self.client.prove("py-matrix", inputs, timeout=300)
        d = os.path.join(ENV["CUZK_TEST_TMP"], "py-inputs")
        os.makedirs(d, exist_ok=True)
        for f, v in (("proof.json", r.proof), ("public.json", r.public_signals)):
            with open(os.path.join(d, f), "w") as out:
                json.dump(v, out)
        v = subprocess.run([ENV["SNARKJS"], "groth16", "verify", MATRIX["VK"], os.path.join(d, "public.json"),
                            os.path.join(d, "proof.json")], capture_output=True, text=True, timeout=120)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        with open(MATRIX["PUBLIC"]) as f:
            self.assertEqual(r.public_signals, json.load(f))

    def test_missing_input_fails_the_job_and_the_next_proves(self):
        inputs = {k: v for k, v in self.inputs.items() if k != "k"}
        with self.assertRaises(JobFailed) as e:
            self.client.prove("py-matrix", inputs, timeout=300)
        self.assertIn("not all inputs are given", str(e.exception))
        self.assertEqual(self.client.prove("py-matrix", self.inputs, timeout=300).state, "DONE")

    def test_input_that_is_not_a_field_element(self):
        with self.assertRaises(RpcError) as e:
            self.client.submit("py-matrix", dict(self.inputs, k=1.5))
        self.assertEqual(e.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("input JSON", str(e.exception))


class DefaultSocket(unittest.TestCase):
    """The CLI's rule: $XDG_STATE_HOME/cuzk/cuzk.sock when XDG_STATE_HOME is absolute and usable."""

    def test_xdg_state_home(self):
        import tempfile
        old = dict(os.environ)
        with tempfile.TemporaryDirectory() as tmp:
            try:
                os.environ["XDG_STATE_HOME"] = tmp
                os.makedirs(os.path.join(tmp, "cuzk"))
                open(os.path.join(tmp, "cuzk", "cuzk.sock"), "w").close()
                self.assertEqual(cuzk_client.default_socket(), os.path.join(tmp, "cuzk", "cuzk.sock"))
                os.environ["XDG_STATE_HOME"] = "relative"  # ignored, as the spec says
                os.environ["HOME"] = tmp
                want = os.path.join(tmp, ".local", "state", "cuzk", "cuzk.sock")
                if os.path.exists(cuzk_client.client.SYSTEM_SOCKET):
                    want = cuzk_client.client.SYSTEM_SOCKET
                self.assertEqual(cuzk_client.default_socket(), want)
            finally:
                os.environ.clear()
                os.environ.update(old)


PKI = os.environ.get("CUZK_TEST_PKI")
ADDR = os.environ.get("CUZK_TEST_ADDR")


@unittest.skipUnless(PKI and ADDR and all(ENV.values()), "run by clients/test.sh, which starts a daemon with TLS")
class OverTls(unittest.TestCase):
    """The daemon's TCP listener with TLS, a client certificate and a token (docs/cluster.md)."""

    def client(self, **overrides):
        opts = dict(ca=os.path.join(PKI, "ca.pem"), cert=os.path.join(PKI, "client.pem"),
                    key=os.path.join(PKI, "client.key"), token_file=os.path.join(PKI, "token"))
        opts.update(overrides)
        return Client(addr=ADDR, **opts)

    def test_proves_with_every_credential(self):
        with self.client() as c:
            c.register("py-tls", os.path.join(ENV["CUZK_TEST_DATA"], "circuit.zkey"))
            with open(os.path.join(ENV["CUZK_TEST_DATA"], "circuit.wtns"), "rb") as f:
                r = c.prove("py-tls", f.read())
            with open(os.path.join(ENV["CUZK_TEST_DATA"], "public.json")) as f:
                self.assertEqual(r.public_signals, json.load(f))

    def test_refused_without_the_token(self):
        with self.client(token_file=None) as c:
            with self.assertRaises(RpcError) as e:
                c.status()
            self.assertEqual(e.exception.code, grpc.StatusCode.UNAUTHENTICATED)
            self.assertIn("bearer token", str(e.exception))

    def test_tls_options_are_for_addr_only(self):
        with self.assertRaises(CuzkError):
            Client(socket=ENV["CUZK_TEST_SOCKET"], ca=os.path.join(PKI, "ca.pem"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
