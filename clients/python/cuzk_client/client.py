# SPDX-License-Identifier: MIT OR Apache-2.0
"""A client for the cuzk daemon's gRPC API (proto/cuzk/v1/proving.proto)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence, Union

import grpc

from ._proto import proving_pb2 as pb
from ._proto import proving_pb2_grpc as pb_grpc

# bytes-like: a .wtns file's contents; str or os.PathLike: a .wtns file's path; a dict: the circuit's
# inputs as input.json holds them ({"a": 3, "b": ["1", "2"]}), for a circuit registered with its
# wasm: the daemon computes the witness.
WitnessLike = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]", dict]

SYSTEM_SOCKET = "/var/lib/cuzk/cuzk.sock"
SOCKET_FILE = "cuzk.sock"

_PRIORITIES = {"LOW": pb.LOW, "NORMAL": pb.NORMAL, "HIGH": pb.HIGH, "CRITICAL": pb.CRITICAL}


class CuzkError(Exception):
    """Every error this package raises."""


class RpcError(CuzkError):
    """A call the daemon refused or could not be reached for.

    code is the gRPC status code (grpc.StatusCode.NOT_FOUND for an unknown circuit or job id,
    UNAVAILABLE when no daemon answers, ...); details is the daemon's message, its own finer code
    in front ("not_found: ...").
    """

    def __init__(self, rpc: str, target: str, code: grpc.StatusCode, details: str):
        self.rpc, self.target, self.code, self.details = rpc, target, code, details
        super().__init__(f"cuzk {rpc} ({target}): {code.name}: {details}")


class JobFailed(CuzkError):
    """The job ended FAILED (or CANCELLED: JobCancelled); result is its ProofResult."""

    def __init__(self, result: "ProofResult"):
        self.result = result
        super().__init__(f"cuzk job {result.job_id} ({result.circuit}) {result.state}: {result.error}")


class JobCancelled(JobFailed):
    pass


class AwaitTimeout(CuzkError):
    """await_job's timeout passed before the job ended; result holds its state then."""

    def __init__(self, result: "ProofResult", timeout: float):
        self.result = result
        super().__init__(f"cuzk job {result.job_id} still {result.state} after {timeout:g} s")


@dataclass
class ProofResult:
    """A job's result: proofs holds one {"proof": ..., "publicSignals": [...]} per partition, as
    snarkjs writes proof.json and public.json."""

    job_id: int
    state: str  # "DONE", "FAILED", "CANCELLED", or a running state ("QUEUED", "PROVING", ...)
    circuit: str
    request_id: str
    error: str
    proofs: list = field(default_factory=list)
    timings: dict = field(default_factory=dict)  # seconds per phase (proto's Timings)
    ran_on: str = ""
    deadline_missed: bool = False
    raw: Any = None  # the cuzk.v1.ProofResult message

    @property
    def proof(self) -> dict:
        """The first partition's proof (the only one for a one-partition job)."""
        return self._first()["proof"]

    @property
    def public_signals(self) -> list:
        """The first partition's public signals."""
        return self._first()["publicSignals"]

    def _first(self) -> dict:
        if not self.proofs:
            raise CuzkError(f"cuzk job {self.job_id} is {self.state}: it has no proofs")
        return self.proofs[0]

    @classmethod
    def from_message(cls, m: "pb.ProofResult") -> "ProofResult":
        proofs = []
        for i, p in enumerate(m.proofs):
            try:
                proofs.append({"proof": json.loads(p.proof_json), "publicSignals": json.loads(p.public_json)})
            except ValueError as e:
                raise CuzkError(f"cuzk job {m.job_id}: partition {i}: the daemon's proof JSON does not parse: {e}")
        timings = {f.name: getattr(m.timings, f.name) for f in m.timings.DESCRIPTOR.fields}
        return cls(job_id=m.job_id, state=pb.JobState.Name(m.state), circuit=m.circuit,
                   request_id=m.request_id, error=m.error, proofs=proofs, timings=timings,
                   ran_on=m.ran_on, deadline_missed=m.deadline_missed, raw=m)


def _state_dir() -> str:
    """The daemon's default state directory, by the rule of src/service/state_dir.hpp."""

    def usable(d: str) -> bool:
        p = d
        while True:
            if os.path.exists(p):
                return os.path.isdir(p) and os.access(p, os.W_OK | os.X_OK)
            parent = os.path.dirname(p)
            if parent == p:
                return False
            p = parent

    xdg, home = os.environ.get("XDG_STATE_HOME"), os.environ.get("HOME")
    if xdg and os.path.isabs(xdg):
        d = os.path.join(xdg, "cuzk")
        if usable(d):
            return os.path.normpath(d)
    if home and os.path.isabs(home) and os.path.isdir(home):
        d = os.path.join(home, ".local", "state", "cuzk")
        if usable(d):
            return os.path.normpath(d)
    return os.path.normpath(os.path.join(os.getcwd(), "cuzk-state"))


def default_socket() -> str:
    """Where the `cuzk` client verbs connect with no --socket: the user's daemon's socket
    ($XDG_STATE_HOME/cuzk, else ~/.local/state/cuzk, else ./cuzk-state, + /cuzk.sock) when it
    exists, else the packaged service's (/var/lib/cuzk/cuzk.sock) when that exists, else the user's."""
    user = os.path.join(_state_dir(), SOCKET_FILE)
    if os.path.exists(user):
        return user
    if os.path.exists(SYSTEM_SOCKET):
        return SYSTEM_SOCKET
    return user


def _priority(p: Union[None, str, int]) -> int:
    if p is None:
        return pb.PRIORITY_UNSPECIFIED
    if isinstance(p, int):
        return p
    try:
        return _PRIORITIES[p.upper()]
    except KeyError:
        raise CuzkError(f"priority: expected LOW, NORMAL, HIGH or CRITICAL, found {p!r}") from None


def _input_json(inputs: dict, index: int) -> str:
    # Python ints of any size are written as JSON numbers; the daemon refuses those past 2^53 (as
    # snarkjs would have rounded them), so they go as decimal strings, which circom reads exactly.
    def plain(v):
        if isinstance(v, bool):
            return v
        if isinstance(v, int):
            return str(v)
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return v
    try:
        return json.dumps(plain(inputs))
    except (TypeError, ValueError) as e:
        raise CuzkError(f"witness {index}: the inputs are not JSON: {e}") from None


def _witness(w: WitnessLike, by_path: bool, index: int) -> "pb.Witness":
    if isinstance(w, dict):
        return pb.Witness(input_json=_input_json(w, index))
    if isinstance(w, (bytes, bytearray, memoryview)):
        return pb.Witness(wtns=bytes(w))
    if isinstance(w, (str, os.PathLike)):
        path = os.path.abspath(os.fspath(w))
        if by_path:
            return pb.Witness(path=path)
        try:
            with open(path, "rb") as f:
                return pb.Witness(wtns=f.read())
        except OSError as e:
            raise CuzkError(f"witness {index}: cannot read {path}: {e.strerror}") from e
    raise CuzkError(f"witness {index}: expected bytes, a path or a dict of inputs, found {type(w).__name__}")


def _read_option_file(option: str, path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise CuzkError(f"Client: {option}: cannot read {path}: {e.strerror}") from e


def _tls_credentials(ca: Optional[str], cert: Optional[str], key: Optional[str],
                     token_file: Optional[str]) -> grpc.ChannelCredentials:
    """TLS for a daemon whose config sets tls_cert: ca= the CA that signed it (PEM; None: the
    system's), cert=/key= a client certificate (its tls_client_ca), token_file= its auth_token_file's
    token, sent as "authorization: Bearer ..." on every call."""
    if bool(cert) != bool(key):
        raise CuzkError("Client: cert and key go together (a client certificate and its private key)")
    creds = grpc.ssl_channel_credentials(
        root_certificates=_read_option_file("ca", ca) if ca else None,
        private_key=_read_option_file("key", key) if key else None,
        certificate_chain=_read_option_file("cert", cert) if cert else None)
    if not token_file:
        return creds
    token = _read_option_file("token_file", token_file).decode().split("\n", 1)[0].strip()
    if not token:
        raise CuzkError(f"Client: token_file: {token_file}: expected the token on its first line, found nothing")
    return grpc.composite_channel_credentials(creds, grpc.access_token_call_credentials(token))


class Client:
    """A connection to a cuzk daemon: socket= a Unix socket path, or addr= "host:port" (TCP).
    With neither, the socket the `cuzk` client verbs use (default_socket()). For a TCP listener
    with TLS (docs/cluster.md, "Remote access"): ca=, cert= and key=, token_file= (PEM paths and
    the token's file, as `cuzk --tls-ca --tls-cert --tls-key --token-file`); any of them turns
    TLS on."""

    def __init__(self, socket: Optional[str] = None, addr: Optional[str] = None, ca: Optional[str] = None,
                 cert: Optional[str] = None, key: Optional[str] = None, token_file: Optional[str] = None):
        if socket and addr:
            raise CuzkError("Client: give socket or addr, not both")
        tls = any((ca, cert, key, token_file))
        if tls and not addr:
            raise CuzkError("Client: ca, cert, key and token_file are for addr (the Unix socket is never TLS)")
        if addr:
            self.target = addr
        else:
            self.target = "unix:" + os.path.abspath(socket or default_socket())
        # Witnesses can be large: no client-side size limit; the daemon has its own.
        options = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)]
        if tls:
            self._channel = grpc.secure_channel(self.target, _tls_credentials(ca, cert, key, token_file), options)
        else:
            self._channel = grpc.insecure_channel(self.target, options=options)
        self._stub = pb_grpc.ProvingEngineStub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _call(self, rpc: str, request, timeout: Optional[float] = None):
        try:
            return getattr(self._stub, rpc)(request, timeout=timeout)
        except grpc.RpcError as e:
            raise RpcError(rpc, self.target, e.code(), e.details() or "") from None

    # ---- circuits ------------------------------------------------------------------------------
    def register(self, circuit: str, zkey_path: str, priority: Union[None, str, int] = None,
                 replace: bool = False, wasm_path: Optional[str] = None) -> None:
        """Registers a circuit id for a .zkey on the daemon's disk (made absolute here). With
        wasm_path (circom's circuit.wasm, on the daemon's disk) the circuit takes its inputs as a
        dict instead of a witness; the daemon compiles the wasm now, the first time it sees it."""
        self._call("RegisterCircuit", pb.RegisterCircuitRequest(
            id=circuit, zkey_path=os.path.abspath(zkey_path), default_priority=_priority(priority),
            replace=replace, wasm_path=os.path.abspath(wasm_path) if wasm_path else ""))

    def circuits(self) -> list:
        """The registered circuits, as dicts of ListCircuits' fields."""
        r = self._call("ListCircuits", pb.ListCircuitsRequest())
        return [{f.name: getattr(c, f.name) for f in c.DESCRIPTOR.fields} for c in r.circuits]

    # ---- jobs ----------------------------------------------------------------------------------
    def submit(self, circuit: str, witnesses: Union[WitnessLike, Sequence[WitnessLike]],
               priority: Union[None, str, int] = None, request_id: Optional[str] = None,
               deadline_unix_ms: int = 0, by_path: bool = False) -> int:
        """Queues a job; returns its id once the daemon has stored it.

        witnesses: one per partition (or a single one): bytes of a .wtns file, a path, or a dict of
        the circuit's inputs (as input.json holds them; the circuit must be registered with its
        wasm). A path is read here and its bytes sent, or with by_path=True sent as a path for the
        daemon to read (it must lie under one of the daemon's witness_dirs)."""
        if isinstance(witnesses, (bytes, bytearray, memoryview, str, os.PathLike, dict)):
            witnesses = [witnesses]
        parts = [_witness(w, by_path, i) for i, w in enumerate(witnesses)]
        if not parts:
            raise CuzkError("submit: no witnesses")
        req = pb.SubmitProofRequest(circuit=circuit, partitions=parts, priority=_priority(priority),
                                    request_id=request_id or "", deadline_unix_ms=deadline_unix_ms)
        return self._call("SubmitProof", req).job_id

    def await_job(self, job_id: int, timeout: Optional[float] = None) -> ProofResult:
        """Waits for the job to end and returns its result. Raises JobFailed / JobCancelled when it
        did not succeed, AwaitTimeout when timeout (seconds) passes first."""
        timeout_ms = 0 if timeout is None else max(1, int(timeout * 1000))
        # The RPC's own deadline leaves the daemon time to answer with the job's state.
        rpc_timeout = None if timeout is None else timeout + 30
        m = self._call("AwaitProof", pb.AwaitProofRequest(job_id=job_id, timeout_ms=timeout_ms), rpc_timeout)
        r = ProofResult.from_message(m)
        if m.state == pb.DONE:
            return r
        if m.state == pb.CANCELLED:
            raise JobCancelled(r)
        if m.state == pb.FAILED:
            raise JobFailed(r)
        raise AwaitTimeout(r, timeout or 0)

    def prove(self, circuit: str, witnesses: Union[WitnessLike, Sequence[WitnessLike]],
              priority: Union[None, str, int] = None, request_id: Optional[str] = None,
              deadline_unix_ms: int = 0, by_path: bool = False,
              timeout: Optional[float] = None) -> ProofResult:
        """submit then await_job."""
        job = self.submit(circuit, witnesses, priority=priority, request_id=request_id,
                          deadline_unix_ms=deadline_unix_ms, by_path=by_path)
        return self.await_job(job, timeout=timeout)

    def cancel(self, job_id: int) -> None:
        """Cancels a queued or running job (an ended one: RpcError FAILED_PRECONDITION)."""
        self._call("CancelProof", pb.CancelProofRequest(job_id=job_id))

    def status(self) -> dict:
        """The daemon's status document (as HTTP /status serves it), parsed."""
        return json.loads(self._call("GetStatus", pb.GetStatusRequest()).json)

    def metrics(self) -> str:
        """Prometheus text, as HTTP /metrics serves it."""
        return self._call("GetMetrics", pb.GetMetricsRequest()).text
