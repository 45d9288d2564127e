"""Python client of the memory service.

The gRPC stubs are what ``buf generate --template buf.gen.sdk.yaml`` writes to ``gen/`` (packages
``memory.v1`` and ``buf.validate``); this package adds a bearer token and retries that follow the
service's contract: on RESOURCE_EXHAUSTED (rate limit) wait the RetryInfo detail's seconds, on
UNAVAILABLE back off exponentially, both with jitter, at most three retries.
"""

from .client import MemoryClient, retry_after_seconds, retry_delay_seconds

__all__ = ["MemoryClient", "retry_after_seconds", "retry_delay_seconds"]
