# SPDX-License-Identifier: MIT OR Apache-2.0
"""The committed stubs (cuzk_client/_proto, made by gen_stubs.sh) describe proto/cuzk/v1/proving.proto
as it is now: its descriptor, compiled here by protoc, equals the one in proving_pb2.py, and the
grpc stub has every method of the service. Needs protoc (protobuf-compiler)."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import grpc  # noqa: E402
from google.protobuf import descriptor_pb2  # noqa: E402

from cuzk_client._proto import proving_pb2, proving_pb2_grpc  # noqa: E402

PROTO_ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", "proto"))


class StubsCurrent(unittest.TestCase):
    def test_descriptor_matches_proto(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "set.pb")
            subprocess.run(["protoc", "-I", PROTO_ROOT, "--descriptor_set_out=" + out,
                            os.path.join(PROTO_ROOT, "cuzk", "v1", "proving.proto")], check=True)
            fds = descriptor_pb2.FileDescriptorSet()
            with open(out, "rb") as f:
                fds.ParseFromString(f.read())
        want = fds.file[0]
        # protoc's descriptor set spells out each field's json_name; generated code leaves it out.
        def strip(messages):
            for m in messages:
                for f in m.field:
                    f.ClearField("json_name")
                strip(m.nested_type)
        strip(want.message_type)
        have = descriptor_pb2.FileDescriptorProto()
        proving_pb2.DESCRIPTOR.CopyToProto(have)
        self.assertEqual(want, have, "cuzk_client/_proto is stale: run clients/python/gen_stubs.sh")

    def test_grpc_stub_has_every_method(self):
        channel = grpc.insecure_channel("unix:/nonexistent")  # never connected
        stub = proving_pb2_grpc.ProvingEngineStub(channel)
        for m in proving_pb2.DESCRIPTOR.services_by_name["ProvingEngine"].methods:
            self.assertTrue(hasattr(stub, m.name), f"the grpc stub lacks {m.name}: run gen_stubs.sh")
        channel.close()


if __name__ == "__main__":
    unittest.main()
