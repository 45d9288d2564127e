from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from memory.v1 import errors_pb2 as _errors_pb2
from memory.v1 import memory_pb2 as _memory_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BatchEntryError(_message.Message):
    __slots__ = ["code", "info", "message", "plan_gate"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PLAN_GATE_FIELD_NUMBER: _ClassVar[int]
    code: int
    info: _errors_pb2.ErrorInfo
    message: str
    plan_gate: _errors_pb2.PlanGate
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ..., info: _Optional[_Union[_errors_pb2.ErrorInfo, _Mapping]] = ..., plan_gate: _Optional[_Union[_errors_pb2.PlanGate, _Mapping]] = ...) -> None: ...

class ConversationMessage(_message.Message):
    __slots__ = ["at", "content", "speaker"]
    AT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    SPEAKER_FIELD_NUMBER: _ClassVar[int]
    at: _timestamp_pb2.Timestamp
    content: str
    speaker: str
    def __init__(self, speaker: _Optional[str] = ..., content: _Optional[str] = ..., at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class FetchWebPageRequest(_message.Message):
    __slots__ = ["title", "url"]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    title: str
    url: str
    def __init__(self, url: _Optional[str] = ..., title: _Optional[str] = ...) -> None: ...

class FetchWebPageResponse(_message.Message):
    __slots__ = ["characters", "memory", "page_type", "url"]
    CHARACTERS_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    PAGE_TYPE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    characters: int
    memory: _memory_pb2.StoredMemory
    page_type: str
    url: str
    def __init__(self, memory: _Optional[_Union[_memory_pb2.StoredMemory, _Mapping]] = ..., url: _Optional[str] = ..., page_type: _Optional[str] = ..., characters: _Optional[int] = ...) -> None: ...

class IngestDocumentRequest(_message.Message):
    __slots__ = ["content", "metadata", "source", "title"]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    content: str
    metadata: _struct_pb2.Struct
    source: str
    title: str
    def __init__(self, title: _Optional[str] = ..., content: _Optional[str] = ..., source: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class IngestDocumentResponse(_message.Message):
    __slots__ = ["document_id", "quota", "status"]
    DOCUMENT_ID_FIELD_NUMBER: _ClassVar[int]
    QUOTA_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    document_id: str
    quota: _memory_pb2.Quota
    status: _memory_pb2.IndexStatus
    def __init__(self, document_id: _Optional[str] = ..., status: _Optional[_Union[_memory_pb2.IndexStatus, str]] = ..., quota: _Optional[_Union[_memory_pb2.Quota, _Mapping]] = ...) -> None: ...

class StoreConversationRequest(_message.Message):
    __slots__ = ["messages", "session_id", "title"]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[ConversationMessage]
    session_id: str
    title: str
    def __init__(self, title: _Optional[str] = ..., session_id: _Optional[str] = ..., messages: _Optional[_Iterable[_Union[ConversationMessage, _Mapping]]] = ...) -> None: ...

class StoreConversationResponse(_message.Message):
    __slots__ = ["memory", "next_session_memory_id", "previous_session_memory_id", "session_id", "turns_added", "turns_skipped", "turns_total"]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    NEXT_SESSION_MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SESSION_MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TURNS_ADDED_FIELD_NUMBER: _ClassVar[int]
    TURNS_SKIPPED_FIELD_NUMBER: _ClassVar[int]
    TURNS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    memory: _memory_pb2.StoredMemory
    next_session_memory_id: str
    previous_session_memory_id: str
    session_id: str
    turns_added: int
    turns_skipped: int
    turns_total: int
    def __init__(self, session_id: _Optional[str] = ..., memory: _Optional[_Union[_memory_pb2.StoredMemory, _Mapping]] = ..., turns_added: _Optional[int] = ..., turns_skipped: _Optional[int] = ..., turns_total: _Optional[int] = ..., previous_session_memory_id: _Optional[str] = ..., next_session_memory_id: _Optional[str] = ...) -> None: ...

class StoreMemoriesRequest(_message.Message):
    __slots__ = ["memories"]
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[StoreMemoryRequest]
    def __init__(self, memories: _Optional[_Iterable[_Union[StoreMemoryRequest, _Mapping]]] = ...) -> None: ...

class StoreMemoriesResponse(_message.Message):
    __slots__ = ["results"]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[StoreMemoriesResult]
    def __init__(self, results: _Optional[_Iterable[_Union[StoreMemoriesResult, _Mapping]]] = ...) -> None: ...

class StoreMemoriesResult(_message.Message):
    __slots__ = ["error", "memory"]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    error: BatchEntryError
    memory: _memory_pb2.StoredMemory
    def __init__(self, memory: _Optional[_Union[_memory_pb2.StoredMemory, _Mapping]] = ..., error: _Optional[_Union[BatchEntryError, _Mapping]] = ...) -> None: ...

class StoreMemoryRequest(_message.Message):
    __slots__ = ["content", "memory_type", "metadata", "source", "tags", "title"]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    MEMORY_TYPE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    content: str
    memory_type: _memory_pb2.MemoryType
    metadata: _struct_pb2.Struct
    source: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    title: str
    def __init__(self, title: _Optional[str] = ..., content: _Optional[str] = ..., memory_type: _Optional[_Union[_memory_pb2.MemoryType, str]] = ..., tags: _Optional[_Iterable[str]] = ..., source: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class StoreMemoryResponse(_message.Message):
    __slots__ = ["memory"]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    memory: _memory_pb2.StoredMemory
    def __init__(self, memory: _Optional[_Union[_memory_pb2.StoredMemory, _Mapping]] = ...) -> None: ...

class UploadDocumentRequest(_message.Message):
    __slots__ = ["content", "metadata", "source", "title"]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    content: str
    metadata: _struct_pb2.Struct
    source: str
    title: str
    def __init__(self, title: _Optional[str] = ..., content: _Optional[str] = ..., source: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class UploadDocumentResponse(_message.Message):
    __slots__ = ["memory"]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    memory: _memory_pb2.StoredMemory
    def __init__(self, memory: _Optional[_Union[_memory_pb2.StoredMemory, _Mapping]] = ...) -> None: ...

class UploadFileRequest(_message.Message):
    __slots__ = ["content_type", "data", "filename", "metadata", "source", "title"]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    content_type: str
    data: bytes
    filename: str
    metadata: _struct_pb2.Struct
    source: str
    title: str
    def __init__(self, data: _Optional[bytes] = ..., filename: _Optional[str] = ..., content_type: _Optional[str] = ..., title: _Optional[str] = ..., source: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class UploadFileResponse(_message.Message):
    __slots__ = ["characters", "file_type", "memory", "pages"]
    CHARACTERS_FIELD_NUMBER: _ClassVar[int]
    FILE_TYPE_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    PAGES_FIELD_NUMBER: _ClassVar[int]
    characters: int
    file_type: str
    memory: _memory_pb2.StoredMemory
    pages: int
    def __init__(self, memory: _Optional[_Union[_memory_pb2.StoredMemory, _Mapping]] = ..., file_type: _Optional[str] = ..., pages: _Optional[int] = ..., characters: _Optional[int] = ...) -> None: ...
