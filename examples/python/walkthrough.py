"""store → recall → update_fact → recall_at_time with the Python SDK.

    MEMORY_URL=127.0.0.1:50051 MEMORY_TOKEN=kmt_… python3 examples/python/walkthrough.py

MEMORY_URL is core's gRPC address (GRPC_PORT). Installed (``pip install sdk/python``), the two
sys.path lines below are not needed.
"""

import json
import os
import sys
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "../../sdk/python"), os.path.join(HERE, "../../sdk/python/gen")]

from google.protobuf.timestamp_pb2 import Timestamp  # noqa: E402

from memory.v1 import graph_service_pb2, ingest_service_pb2, memory_pb2, recall_service_pb2  # noqa: E402
from memory_client import MemoryClient  # noqa: E402

target = os.environ.get("MEMORY_URL", "127.0.0.1:50051")
token = os.environ.get("MEMORY_TOKEN")
if not token:
    sys.exit("MEMORY_TOKEN: set it to an API token (kmt_…)")


def say(step, **values):
    print(json.dumps({"step": step, **values}), flush=True)


with MemoryClient(target, token=token) as client:
    # 1. store: an append-only memory; indexed (full text + vector) when the call returns.
    stored = client.ingest.StoreMemory(
        ingest_service_pb2.StoreMemoryRequest(
            title="ACME office",
            content="The ACME team works from the Berlin office on Torstraße.",
            memory_type=memory_pb2.MEMORY_TYPE_SEMANTIC,
            tags=["acme", "office"],
        )
    ).memory
    say("store", memoryId=stored.memory_id, chunks=stored.chunks_written)
    before_update = datetime.now(timezone.utc)

    # 2. recall: hybrid search, re-ranked.
    question = "Where does the ACME team work?"
    first = client.recall.Recall(recall_service_pb2.RecallRequest(query=question, k=3))
    say("recall", top=first.hits[0].content, memoryId=first.hits[0].memory_id)

    # 3. update_fact: a new version; the old one stays queryable at the times it was valid.
    updated = client.graph.UpdateFact(
        graph_service_pb2.UpdateFactRequest(
            target_id=stored.memory_id,
            new_title="ACME office",
            new_content="The ACME team moved to the Hamburg office at the harbour.",
            update_reason="office move",
        )
    )
    say("update_fact", oldMemoryId=updated.old_memory_id, newMemoryId=updated.new_memory_id)

    # 4. recall now (the new version) and at a time before the update (the old one).
    now = client.recall.Recall(recall_service_pb2.RecallRequest(query=question, k=3))
    say("recall_now", top=now.hits[0].content, memoryId=now.hits[0].memory_id)
    as_of = Timestamp()
    as_of.FromDatetime(before_update)
    then = client.recall.Recall(recall_service_pb2.RecallRequest(query=question, k=3, as_of=as_of))
    hit = then.hits[0]
    say(
        "recall_at_time",
        asOf=before_update.isoformat(),
        top=hit.content,
        memoryId=hit.memory_id,
        validTo=hit.valid_to.ToJsonString() if hit.HasField("valid_to") else None,
    )
