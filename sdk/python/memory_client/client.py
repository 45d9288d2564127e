from __future__ import annotations

import random
import time
from typing import Callable, Optional, Union

import grpc

from memory.v1 import (
    errors_pb2,
    graph_service_pb2_grpc,
    ingest_service_pb2_grpc,
    recall_service_pb2_grpc,
    status_service_pb2_grpc,
    tenancy_service_pb2_grpc,
    webhook_service_pb2_grpc,
)

MAX_RETRIES = 3
_RETRY_INFO_TYPE = "type.googleapis.com/memory.v1.RetryInfo"

TokenSource = Union[str, Callable[[], str]]


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _fields(data: bytes):
    """(field number, value) of a protobuf message; length-delimited values as bytes."""
    pos = 0
    while pos < len(data):
        tag, pos = _read_varint(data, pos)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, pos = _read_varint(data, pos)
        elif wire == 2:
            size, pos = _read_varint(data, pos)
            value, pos = data[pos : pos + size], pos + size
        elif wire == 1:
            value, pos = data[pos : pos + 8], pos + 8
        elif wire == 5:
            value, pos = data[pos : pos + 4], pos + 4
        else:
            return
        yield number, value


def retry_after_seconds(error: grpc.RpcError) -> Optional[int]:
    """Seconds the server asked to wait: the memory.v1.RetryInfo detail of the google.rpc.Status in
    the grpc-status-details-bin trailer (google.rpc.Status is decoded by hand so the SDK needs no
    googleapis-common-protos), else a retry-after trailer."""
    trailers = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    for key, value in trailers or ():
        if key == "grpc-status-details-bin" and isinstance(value, bytes):
            for number, detail in _fields(value):
                if number != 3:  # Status.details: repeated Any
                    continue
                parts = dict(_fields(detail))  # Any: 1 type_url, 2 value
                if parts.get(1, b"").decode() == _RETRY_INFO_TYPE:
                    info = errors_pb2.RetryInfo.FromString(parts.get(2, b""))
                    if info.retry_after_seconds > 0:
                        return info.retry_after_seconds
        if key == "retry-after" and str(value).strip().isdigit():
            return int(str(value).strip())
    return None


def retry_delay_seconds(
    error: grpc.RpcError, retry: int, base_delay: float = 0.25, rand: Callable[[], float] = random.random
) -> Optional[float]:
    """The wait before retry number ``retry`` (1-based), or None when the error is not retryable."""
    code = error.code() if hasattr(error, "code") else None
    seconds = retry_after_seconds(error)
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED and seconds is not None:
        return seconds + rand() * min(1.0, max(0.1, seconds * 0.2))
    if code == grpc.StatusCode.UNAVAILABLE:
        cap = base_delay * 2 ** (retry - 1)
        return cap / 2 + rand() * cap / 2
    return None


class _Interceptor(grpc.UnaryUnaryClientInterceptor):
    def __init__(
        self, token: Optional[TokenSource], max_retries: int, max_delay: float, base_delay: float, timeout: float
    ):
        self._token = token
        self._timeout = timeout
        self._max_retries = max(0, min(max_retries, MAX_RETRIES))
        self._max_delay = max_delay
        self._base_delay = base_delay

    def intercept_unary_unary(self, continuation, client_call_details, request):
        for retry in range(1, self._max_retries + 2):
            details = client_call_details
            if details.timeout is None:
                details = details._replace(timeout=self._timeout)
            if self._token is not None:
                token = self._token() if callable(self._token) else self._token
                metadata = [(k, v) for k, v in (details.metadata or ()) if k != "authorization"]
                metadata.append(("authorization", f"Bearer {token}"))
                details = details._replace(metadata=metadata)
            outcome = continuation(details, request)
            error = outcome.exception() if hasattr(outcome, "exception") else None
            if error is None or retry > self._max_retries:
                return outcome
            delay = retry_delay_seconds(error, retry, self._base_delay)
            if delay is None or delay > self._max_delay:
                return outcome
            time.sleep(delay)
        return outcome




class MemoryClient:
    """Stubs of every memory.v1 service over one channel to core's gRPC port.

    ``MemoryClient("127.0.0.1:50051", token="kmt_…")``; ``secure=True`` (or ``credentials=``) for TLS.
    ``client.ingest.StoreMemory(...)``, ``client.recall.Recall(...)``, ``client.graph.UpdateFact(...)``.
    """

    def __init__(
        self,
        target: str,
        token: Optional[TokenSource] = None,
        *,
        secure: bool = False,
        credentials: Optional[grpc.ChannelCredentials] = None,
        max_retries: int = MAX_RETRIES,
        max_delay: float = 60.0,
        base_delay: float = 0.25,
        timeout: float = 30.0,
    ):
        if credentials is None and secure:
            credentials = grpc.ssl_channel_credentials()
        raw = grpc.secure_channel(target, credentials) if credentials else grpc.insecure_channel(target)
        self._raw = raw
        self.channel = grpc.intercept_channel(
            raw, _Interceptor(token, max_retries, max_delay, base_delay, timeout)
        )
        self.ingest = ingest_service_pb2_grpc.IngestServiceStub(self.channel)
        self.recall = recall_service_pb2_grpc.RecallServiceStub(self.channel)
        self.graph = graph_service_pb2_grpc.GraphServiceStub(self.channel)
        self.status = status_service_pb2_grpc.StatusServiceStub(self.channel)
        self.tenancy = tenancy_service_pb2_grpc.TenancyServiceStub(self.channel)
        self.webhooks = webhook_service_pb2_grpc.WebhookServiceStub(self.channel)

    def close(self) -> None:
        self._raw.close()

    def __enter__(self) -> "MemoryClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
