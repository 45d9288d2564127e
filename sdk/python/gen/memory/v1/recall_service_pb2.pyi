from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from memory.v1 import memory_pb2 as _memory_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
TAG_MATCH_ALL: TagMatch
TAG_MATCH_ANY: TagMatch
TAG_MATCH_UNSPECIFIED: TagMatch

class GetStatsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetStatsResponse(_message.Message):
    __slots__ = ["chunks", "edges", "memories", "p50_ms", "p99_ms", "queries_last_24h", "quota"]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    P50_MS_FIELD_NUMBER: _ClassVar[int]
    P99_MS_FIELD_NUMBER: _ClassVar[int]
    QUERIES_LAST_24H_FIELD_NUMBER: _ClassVar[int]
    QUOTA_FIELD_NUMBER: _ClassVar[int]
    chunks: int
    edges: int
    memories: int
    p50_ms: int
    p99_ms: int
    queries_last_24h: int
    quota: _memory_pb2.Quota
    def __init__(self, memories: _Optional[int] = ..., edges: _Optional[int] = ..., chunks: _Optional[int] = ..., queries_last_24h: _Optional[int] = ..., p50_ms: _Optional[int] = ..., p99_ms: _Optional[int] = ..., quota: _Optional[_Union[_memory_pb2.Quota, _Mapping]] = ...) -> None: ...

class ListRecentRequest(_message.Message):
    __slots__ = ["k"]
    K_FIELD_NUMBER: _ClassVar[int]
    k: int
    def __init__(self, k: _Optional[int] = ...) -> None: ...

class ListRecentResponse(_message.Message):
    __slots__ = ["count", "items"]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    count: int
    items: _containers.RepeatedCompositeFieldContainer[RecentItem]
    def __init__(self, items: _Optional[_Iterable[_Union[RecentItem, _Mapping]]] = ..., count: _Optional[int] = ...) -> None: ...

class QueryTime(_message.Message):
    __slots__ = ["text", "to"]
    FROM_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    text: str
    to: _timestamp_pb2.Timestamp
    def __init__(self, text: _Optional[str] = ..., to: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., **kwargs) -> None: ...

class RecallExplanation(_message.Message):
    __slots__ = ["fulltext_rank", "fulltext_score", "fulltext_share", "fused_score", "graph_path", "graph_seed_id", "hops", "matched_terms", "query_time", "rerank_score", "time_match", "vector_distance", "vector_rank"]
    FULLTEXT_RANK_FIELD_NUMBER: _ClassVar[int]
    FULLTEXT_SCORE_FIELD_NUMBER: _ClassVar[int]
    FULLTEXT_SHARE_FIELD_NUMBER: _ClassVar[int]
    FUSED_SCORE_FIELD_NUMBER: _ClassVar[int]
    GRAPH_PATH_FIELD_NUMBER: _ClassVar[int]
    GRAPH_SEED_ID_FIELD_NUMBER: _ClassVar[int]
    HOPS_FIELD_NUMBER: _ClassVar[int]
    MATCHED_TERMS_FIELD_NUMBER: _ClassVar[int]
    QUERY_TIME_FIELD_NUMBER: _ClassVar[int]
    RERANK_SCORE_FIELD_NUMBER: _ClassVar[int]
    TIME_MATCH_FIELD_NUMBER: _ClassVar[int]
    VECTOR_DISTANCE_FIELD_NUMBER: _ClassVar[int]
    VECTOR_RANK_FIELD_NUMBER: _ClassVar[int]
    fulltext_rank: int
    fulltext_score: float
    fulltext_share: float
    fused_score: float
    graph_path: _containers.RepeatedScalarFieldContainer[str]
    graph_seed_id: str
    hops: int
    matched_terms: _containers.RepeatedScalarFieldContainer[str]
    query_time: QueryTime
    rerank_score: float
    time_match: float
    vector_distance: float
    vector_rank: int
    def __init__(self, fulltext_rank: _Optional[int] = ..., fulltext_score: _Optional[float] = ..., matched_terms: _Optional[_Iterable[str]] = ..., vector_rank: _Optional[int] = ..., vector_distance: _Optional[float] = ..., fulltext_share: _Optional[float] = ..., fused_score: _Optional[float] = ..., rerank_score: _Optional[float] = ..., hops: _Optional[int] = ..., graph_path: _Optional[_Iterable[str]] = ..., graph_seed_id: _Optional[str] = ..., query_time: _Optional[_Union[QueryTime, _Mapping]] = ..., time_match: _Optional[float] = ...) -> None: ...

class RecallFilter(_message.Message):
    __slots__ = ["created_after", "created_before", "kinds", "memory_types", "origin", "tags", "tags_match"]
    CREATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    CREATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    MEMORY_TYPES_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    TAGS_MATCH_FIELD_NUMBER: _ClassVar[int]
    created_after: _timestamp_pb2.Timestamp
    created_before: _timestamp_pb2.Timestamp
    kinds: _containers.RepeatedScalarFieldContainer[_memory_pb2.MemoryKind]
    memory_types: _containers.RepeatedScalarFieldContainer[_memory_pb2.MemoryType]
    origin: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    tags_match: TagMatch
    def __init__(self, memory_types: _Optional[_Iterable[_Union[_memory_pb2.MemoryType, str]]] = ..., tags: _Optional[_Iterable[str]] = ..., tags_match: _Optional[_Union[TagMatch, str]] = ..., origin: _Optional[str] = ..., created_after: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., created_before: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., kinds: _Optional[_Iterable[_Union[_memory_pb2.MemoryKind, str]]] = ...) -> None: ...

class RecallHit(_message.Message):
    __slots__ = ["content", "explanation", "hops", "kind", "memory_id", "memory_type", "origin", "page", "page_end", "score", "snippet", "source", "title", "valid_from", "valid_to"]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    HOPS_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_TYPE_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    PAGE_END_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SNIPPET_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    VALID_FROM_FIELD_NUMBER: _ClassVar[int]
    VALID_TO_FIELD_NUMBER: _ClassVar[int]
    content: str
    explanation: RecallExplanation
    hops: int
    kind: _memory_pb2.MemoryKind
    memory_id: str
    memory_type: _memory_pb2.MemoryType
    origin: str
    page: int
    page_end: int
    score: float
    snippet: str
    source: str
    title: str
    valid_from: _timestamp_pb2.Timestamp
    valid_to: _timestamp_pb2.Timestamp
    def __init__(self, memory_id: _Optional[str] = ..., title: _Optional[str] = ..., snippet: _Optional[str] = ..., content: _Optional[str] = ..., score: _Optional[float] = ..., source: _Optional[str] = ..., hops: _Optional[int] = ..., valid_from: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., valid_to: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., memory_type: _Optional[_Union[_memory_pb2.MemoryType, str]] = ..., kind: _Optional[_Union[_memory_pb2.MemoryKind, str]] = ..., origin: _Optional[str] = ..., explanation: _Optional[_Union[RecallExplanation, _Mapping]] = ..., page: _Optional[int] = ..., page_end: _Optional[int] = ...) -> None: ...

class RecallRequest(_message.Message):
    __slots__ = ["as_of", "explain", "filter", "hops", "k", "query", "stages"]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    HOPS_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    STAGES_FIELD_NUMBER: _ClassVar[int]
    as_of: _timestamp_pb2.Timestamp
    explain: bool
    filter: RecallFilter
    hops: int
    k: int
    query: str
    stages: RecallStages
    def __init__(self, query: _Optional[str] = ..., k: _Optional[int] = ..., hops: _Optional[int] = ..., as_of: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., stages: _Optional[_Union[RecallStages, _Mapping]] = ..., explain: bool = ..., filter: _Optional[_Union[RecallFilter, _Mapping]] = ...) -> None: ...

class RecallResponse(_message.Message):
    __slots__ = ["hits", "latency_ms", "reranker", "timings"]
    HITS_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    RERANKER_FIELD_NUMBER: _ClassVar[int]
    TIMINGS_FIELD_NUMBER: _ClassVar[int]
    hits: _containers.RepeatedCompositeFieldContainer[RecallHit]
    latency_ms: int
    reranker: str
    timings: _containers.RepeatedCompositeFieldContainer[StageTiming]
    def __init__(self, hits: _Optional[_Iterable[_Union[RecallHit, _Mapping]]] = ..., latency_ms: _Optional[int] = ..., reranker: _Optional[str] = ..., timings: _Optional[_Iterable[_Union[StageTiming, _Mapping]]] = ...) -> None: ...

class RecallStages(_message.Message):
    __slots__ = ["disable_fulltext", "disable_graph", "disable_rerank", "disable_vector"]
    DISABLE_FULLTEXT_FIELD_NUMBER: _ClassVar[int]
    DISABLE_GRAPH_FIELD_NUMBER: _ClassVar[int]
    DISABLE_RERANK_FIELD_NUMBER: _ClassVar[int]
    DISABLE_VECTOR_FIELD_NUMBER: _ClassVar[int]
    disable_fulltext: bool
    disable_graph: bool
    disable_rerank: bool
    disable_vector: bool
    def __init__(self, disable_fulltext: bool = ..., disable_vector: bool = ..., disable_graph: bool = ..., disable_rerank: bool = ...) -> None: ...

class RecentItem(_message.Message):
    __slots__ = ["created_at", "id", "indexed_chunks", "kind", "status", "title", "updated_at"]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    INDEXED_CHUNKS_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    created_at: _timestamp_pb2.Timestamp
    id: str
    indexed_chunks: int
    kind: _memory_pb2.MemoryKind
    status: _memory_pb2.IndexStatus
    title: str
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., status: _Optional[_Union[_memory_pb2.IndexStatus, str]] = ..., indexed_chunks: _Optional[int] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., kind: _Optional[_Union[_memory_pb2.MemoryKind, str]] = ...) -> None: ...

class StageTiming(_message.Message):
    __slots__ = ["ms", "stage"]
    MS_FIELD_NUMBER: _ClassVar[int]
    STAGE_FIELD_NUMBER: _ClassVar[int]
    ms: float
    stage: str
    def __init__(self, stage: _Optional[str] = ..., ms: _Optional[float] = ...) -> None: ...

class TagMatch(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
