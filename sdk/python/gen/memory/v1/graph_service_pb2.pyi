from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from memory.v1 import memory_pb2 as _memory_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EdgeTypeCount(_message.Message):
    __slots__ = ["count", "rel_type"]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    REL_TYPE_FIELD_NUMBER: _ClassVar[int]
    count: int
    rel_type: str
    def __init__(self, rel_type: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class GetGraphSchemaRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetGraphSchemaResponse(_message.Message):
    __slots__ = ["edge_types", "edges", "nodes", "relation_types"]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    EDGE_TYPES_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    RELATION_TYPES_FIELD_NUMBER: _ClassVar[int]
    edge_types: _containers.RepeatedCompositeFieldContainer[EdgeTypeCount]
    edges: int
    nodes: int
    relation_types: _containers.RepeatedCompositeFieldContainer[RelationType]
    def __init__(self, nodes: _Optional[int] = ..., edges: _Optional[int] = ..., edge_types: _Optional[_Iterable[_Union[EdgeTypeCount, _Mapping]]] = ..., relation_types: _Optional[_Iterable[_Union[RelationType, _Mapping]]] = ...) -> None: ...

class IncomingRelation(_message.Message):
    __slots__ = ["edge_id", "rel_type"]
    EDGE_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    REL_TYPE_FIELD_NUMBER: _ClassVar[int]
    edge_id: str
    rel_type: str
    def __init__(self, rel_type: _Optional[str] = ..., edge_id: _Optional[str] = ..., **kwargs) -> None: ...

class LinkRequest(_message.Message):
    __slots__ = ["from_id", "rel_type", "to_id"]
    FROM_ID_FIELD_NUMBER: _ClassVar[int]
    REL_TYPE_FIELD_NUMBER: _ClassVar[int]
    TO_ID_FIELD_NUMBER: _ClassVar[int]
    from_id: str
    rel_type: str
    to_id: str
    def __init__(self, from_id: _Optional[str] = ..., to_id: _Optional[str] = ..., rel_type: _Optional[str] = ...) -> None: ...

class LinkResponse(_message.Message):
    __slots__ = ["edge_id", "inverse_edge_id"]
    EDGE_ID_FIELD_NUMBER: _ClassVar[int]
    INVERSE_EDGE_ID_FIELD_NUMBER: _ClassVar[int]
    edge_id: str
    inverse_edge_id: str
    def __init__(self, edge_id: _Optional[str] = ..., inverse_edge_id: _Optional[str] = ...) -> None: ...

class ListRelationsRequest(_message.Message):
    __slots__ = ["memory_id"]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    memory_id: str
    def __init__(self, memory_id: _Optional[str] = ...) -> None: ...

class ListRelationsResponse(_message.Message):
    __slots__ = ["incoming", "outgoing"]
    INCOMING_FIELD_NUMBER: _ClassVar[int]
    OUTGOING_FIELD_NUMBER: _ClassVar[int]
    incoming: _containers.RepeatedCompositeFieldContainer[IncomingRelation]
    outgoing: _containers.RepeatedCompositeFieldContainer[OutgoingRelation]
    def __init__(self, outgoing: _Optional[_Iterable[_Union[OutgoingRelation, _Mapping]]] = ..., incoming: _Optional[_Iterable[_Union[IncomingRelation, _Mapping]]] = ...) -> None: ...

class ListVersionsRequest(_message.Message):
    __slots__ = ["include_content", "memory_id"]
    INCLUDE_CONTENT_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    include_content: bool
    memory_id: str
    def __init__(self, memory_id: _Optional[str] = ..., include_content: bool = ...) -> None: ...

class ListVersionsResponse(_message.Message):
    __slots__ = ["versions"]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    versions: _containers.RepeatedCompositeFieldContainer[MemoryVersion]
    def __init__(self, versions: _Optional[_Iterable[_Union[MemoryVersion, _Mapping]]] = ...) -> None: ...

class MemoryVersion(_message.Message):
    __slots__ = ["content", "id", "kind", "memory_type", "recorded_at", "supersedes_id", "title", "update_reason", "valid_from", "valid_to"]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MEMORY_TYPE_FIELD_NUMBER: _ClassVar[int]
    RECORDED_AT_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDES_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    UPDATE_REASON_FIELD_NUMBER: _ClassVar[int]
    VALID_FROM_FIELD_NUMBER: _ClassVar[int]
    VALID_TO_FIELD_NUMBER: _ClassVar[int]
    content: str
    id: str
    kind: _memory_pb2.MemoryKind
    memory_type: _memory_pb2.MemoryType
    recorded_at: _timestamp_pb2.Timestamp
    supersedes_id: str
    title: str
    update_reason: str
    valid_from: _timestamp_pb2.Timestamp
    valid_to: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., title: _Optional[str] = ..., valid_from: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., valid_to: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., recorded_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., supersedes_id: _Optional[str] = ..., update_reason: _Optional[str] = ..., content: _Optional[str] = ..., kind: _Optional[_Union[_memory_pb2.MemoryKind, str]] = ..., memory_type: _Optional[_Union[_memory_pb2.MemoryType, str]] = ...) -> None: ...

class OutgoingRelation(_message.Message):
    __slots__ = ["edge_id", "rel_type", "to"]
    EDGE_ID_FIELD_NUMBER: _ClassVar[int]
    REL_TYPE_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    edge_id: str
    rel_type: str
    to: str
    def __init__(self, rel_type: _Optional[str] = ..., to: _Optional[str] = ..., edge_id: _Optional[str] = ...) -> None: ...

class RelationType(_message.Message):
    __slots__ = ["allow_self_loop", "description", "inverse", "name", "source_kinds", "symmetric", "target_kinds"]
    ALLOW_SELF_LOOP_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INVERSE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_KINDS_FIELD_NUMBER: _ClassVar[int]
    SYMMETRIC_FIELD_NUMBER: _ClassVar[int]
    TARGET_KINDS_FIELD_NUMBER: _ClassVar[int]
    allow_self_loop: bool
    description: str
    inverse: str
    name: str
    source_kinds: _containers.RepeatedScalarFieldContainer[str]
    symmetric: bool
    target_kinds: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., inverse: _Optional[str] = ..., symmetric: bool = ..., source_kinds: _Optional[_Iterable[str]] = ..., target_kinds: _Optional[_Iterable[str]] = ..., allow_self_loop: bool = ..., description: _Optional[str] = ...) -> None: ...

class UnlinkRequest(_message.Message):
    __slots__ = ["from_id", "rel_type", "to_id"]
    FROM_ID_FIELD_NUMBER: _ClassVar[int]
    REL_TYPE_FIELD_NUMBER: _ClassVar[int]
    TO_ID_FIELD_NUMBER: _ClassVar[int]
    from_id: str
    rel_type: str
    to_id: str
    def __init__(self, from_id: _Optional[str] = ..., to_id: _Optional[str] = ..., rel_type: _Optional[str] = ...) -> None: ...

class UnlinkResponse(_message.Message):
    __slots__ = ["deleted"]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: bool
    def __init__(self, deleted: bool = ...) -> None: ...

class UpdateFactRequest(_message.Message):
    __slots__ = ["new_content", "new_title", "target_id", "update_reason"]
    NEW_CONTENT_FIELD_NUMBER: _ClassVar[int]
    NEW_TITLE_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    UPDATE_REASON_FIELD_NUMBER: _ClassVar[int]
    new_content: str
    new_title: str
    target_id: str
    update_reason: str
    def __init__(self, target_id: _Optional[str] = ..., new_title: _Optional[str] = ..., new_content: _Optional[str] = ..., update_reason: _Optional[str] = ...) -> None: ...

class UpdateFactResponse(_message.Message):
    __slots__ = ["memory", "new_memory_id", "old_memory_id", "supersedes_edge"]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    NEW_MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    OLD_MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDES_EDGE_FIELD_NUMBER: _ClassVar[int]
    memory: _memory_pb2.StoredMemory
    new_memory_id: str
    old_memory_id: str
    supersedes_edge: str
    def __init__(self, old_memory_id: _Optional[str] = ..., new_memory_id: _Optional[str] = ..., supersedes_edge: _Optional[str] = ..., memory: _Optional[_Union[_memory_pb2.StoredMemory, _Mapping]] = ...) -> None: ...
