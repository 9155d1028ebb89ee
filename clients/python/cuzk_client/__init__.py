# SPDX-License-Identifier: MIT OR Apache-2.0
"""Python client for the cuzk proving daemon (gRPC, proto/cuzk/v1/proving.proto).

    from cuzk_client import Client
    with Client() as c:                       # the socket `cuzk status` would use
        r = c.prove("multiplier", "circuit.wtns")
        print(r.proof, r.public_signals)

Witnesses are .wtns files (bytes, or a path). Input JSON is not accepted: the daemon does not
compute witnesses; make the .wtns with snarkjs wtns calculate (or circom's witness generator).
"""

from .client import (AwaitTimeout, Client, CuzkError, JobCancelled, JobFailed, ProofResult,
                     RpcError, default_socket)

__all__ = ["AwaitTimeout", "Client", "CuzkError", "JobCancelled", "JobFailed", "ProofResult",
           "RpcError", "default_socket"]
