from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from memory.v1 import memory_pb2 as _memory_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

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
