"""Tests of the Python SDK, run by test/sdk/python-client.test.ts (or alone:
``PYTHONPATH=sdk/python:sdk/python/gen python3 -m unittest discover sdk/python/tests``).

The live-service tests need MEMORY_URL and MEMORY_LIMITED_TOKEN (a token limited to 2 requests per
minute); the retry tests run against an in-process fake StatusService.
"""

import os
import time
import unittest
from concurrent import futures

import grpc

from memory.v1 import errors_pb2, recall_service_pb2, status_service_pb2, status_service_pb2_grpc
from memory_client import MemoryClient, retry_after_seconds, retry_delay_seconds


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def status_with_retry_info(seconds: int) -> bytes:
    """A google.rpc.Status with one Any(memory.v1.RetryInfo), as core sends it."""
    info = errors_pb2.RetryInfo(retry_after_seconds=seconds).SerializeToString()
    any_ = _field(1, b"type.googleapis.com/memory.v1.RetryInfo") + _field(2, info)
    return _varint(1 << 3 | 0) + _varint(8) + _field(2, b"rate limited") + _field(3, any_)


class FakeStatus(status_service_pb2_grpc.StatusServiceServicer):
    def __init__(self, script):
        self.script = list(script)
        self.calls = []

    def GetStatus(self, request, context):
        self.calls.append((time.monotonic(), dict(context.invocation_metadata()).get("authorization")))
        outcome = self.script.pop(0) if self.script else "ok"
        if outcome == "limited":
            context.set_trailing_metadata((("grpc-status-details-bin", status_with_retry_info(1)),))
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "rate limit exceeded; retry in 1 s")
        if outcome == "unavailable":
            context.abort(grpc.StatusCode.UNAVAILABLE, "database unreachable")
        return status_service_pb2.GetStatusResponse(status="ok")


def fake_server(script):
    servicer = FakeStatus(script)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    status_service_pb2_grpc.add_StatusServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, servicer, f"127.0.0.1:{port}"


class RetryTest(unittest.TestCase):
    def test_rate_limit_waits_the_retry_info_seconds_with_the_token(self):
        server, fake, target = fake_server(["limited", "limited", "ok"])
        try:
            with MemoryClient(target, token="kmt_test") as client:
                self.assertEqual(client.status.GetStatus(status_service_pb2.GetStatusRequest()).status, "ok")
            self.assertEqual(len(fake.calls), 3)
            for before, after in zip(fake.calls, fake.calls[1:]):
                self.assertGreaterEqual(after[0] - before[0], 1.0)
            self.assertTrue(all(auth == "Bearer kmt_test" for _, auth in fake.calls))
        finally:
            server.stop(0)

    def test_at_most_three_retries(self):
        server, fake, target = fake_server(["unavailable"] * 5)
        try:
            with MemoryClient(target, max_retries=10, base_delay=0.02) as client:
                with self.assertRaises(grpc.RpcError) as caught:
                    client.status.GetStatus(status_service_pb2.GetStatusRequest())
            self.assertEqual(caught.exception.code(), grpc.StatusCode.UNAVAILABLE)
            self.assertEqual(len(fake.calls), 4)
        finally:
            server.stop(0)

    def test_jitter(self):
        class Limited(grpc.RpcError):
            def code(self):
                return grpc.StatusCode.RESOURCE_EXHAUSTED

            def trailing_metadata(self):
                return (("grpc-status-details-bin", status_with_retry_info(10)),)

        self.assertEqual(retry_after_seconds(Limited()), 10)
        self.assertEqual(retry_delay_seconds(Limited(), 1, rand=lambda: 0), 10)
        self.assertAlmostEqual(retry_delay_seconds(Limited(), 1, rand=lambda: 1), 11)


@unittest.skipUnless(os.environ.get("MEMORY_LIMITED_TOKEN"), "needs MEMORY_URL and MEMORY_LIMITED_TOKEN")
class LiveTest(unittest.TestCase):
    def test_the_services_rate_limit_carries_retry_info(self):
        with MemoryClient(os.environ["MEMORY_URL"], token=os.environ["MEMORY_LIMITED_TOKEN"], max_delay=0.5) as c:
            error = None
            for _ in range(5):
                try:
                    c.recall.Recall(recall_service_pb2.RecallRequest(query="limit"))
                except grpc.RpcError as e:
                    error = e
                    break
        self.assertIsNotNone(error)
        self.assertEqual(error.code(), grpc.StatusCode.RESOURCE_EXHAUSTED)
        seconds = retry_after_seconds(error)
        self.assertTrue(seconds is not None and 1 <= seconds <= 60, seconds)


if __name__ == "__main__":
    unittest.main()
