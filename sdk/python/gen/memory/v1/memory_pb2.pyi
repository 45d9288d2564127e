from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
INDEX_STATUS_FAILED: IndexStatus
INDEX_STATUS_INDEXED: IndexStatus
INDEX_STATUS_QUEUED: IndexStatus
INDEX_STATUS_UNSPECIFIED: IndexStatus
MEMORY_KIND_DOCUMENT: MemoryKind
MEMORY_KIND_ENTRY: MemoryKind
MEMORY_KIND_UNSPECIFIED: MemoryKind
MEMORY_TYPE_ENTITY: MemoryType
MEMORY_TYPE_EPISODIC: MemoryType
MEMORY_TYPE_PROCEDURAL: MemoryType
MEMORY_TYPE_REFERENCE: MemoryType
MEMORY_TYPE_SEMANTIC: MemoryType
MEMORY_TYPE_UNSPECIFIED: MemoryType
MEMORY_TYPE_WORKING: MemoryType
PLAN_API: Plan
PLAN_FREE: Plan
PLAN_PLUS: Plan
PLAN_PRO: Plan
PLAN_TEAM: Plan
PLAN_UNSPECIFIED: Plan

class Quota(_message.Message):
    __slots__ = ["hint", "memories_used", "memory_limit", "warn_at_80"]
    HINT_FIELD_NUMBER: _ClassVar[int]
    MEMORIES_USED_FIELD_NUMBER: _ClassVar[int]
    MEMORY_LIMIT_FIELD_NUMBER: _ClassVar[int]
    WARN_AT_80_FIELD_NUMBER: _ClassVar[int]
    hint: str
    memories_used: int
    memory_limit: int
    warn_at_80: bool
    def __init__(self, memory_limit: _Optional[int] = ..., memories_used: _Optional[int] = ..., warn_at_80: bool = ..., hint: _Optional[str] = ...) -> None: ...

class StoredMemory(_message.Message):
    __slots__ = ["chunks_written", "embedding_provider", "memory_id", "quota", "replaced_document_ids", "status", "title", "unchanged"]
    CHUNKS_WRITTEN_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_PROVIDER_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    QUOTA_FIELD_NUMBER: _ClassVar[int]
    REPLACED_DOCUMENT_IDS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    UNCHANGED_FIELD_NUMBER: _ClassVar[int]
    chunks_written: int
    embedding_provider: str
    memory_id: str
    quota: Quota
    replaced_document_ids: _containers.RepeatedScalarFieldContainer[str]
    status: IndexStatus
    title: str
    unchanged: bool
    def __init__(self, memory_id: _Optional[str] = ..., title: _Optional[str] = ..., status: _Optional[_Union[IndexStatus, str]] = ..., chunks_written: _Optional[int] = ..., embedding_provider: _Optional[str] = ..., replaced_document_ids: _Optional[_Iterable[str]] = ..., unchanged: bool = ..., quota: _Optional[_Union[Quota, _Mapping]] = ...) -> None: ...

class MemoryType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class MemoryKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class IndexStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Plan(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
