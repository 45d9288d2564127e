from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class EraseMemoryRequest(_message.Message):
    __slots__ = ["dry_run", "id"]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    dry_run: bool
    id: str
    def __init__(self, id: _Optional[str] = ..., dry_run: bool = ...) -> None: ...

class EraseMemoryResponse(_message.Message):
    __slots__ = ["chunks", "edges", "erased", "title", "versions"]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    ERASED_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    chunks: int
    edges: int
    erased: bool
    title: str
    versions: int
    def __init__(self, erased: bool = ..., versions: _Optional[int] = ..., chunks: _Optional[int] = ..., edges: _Optional[int] = ..., title: _Optional[str] = ...) -> None: ...

class EraseWorkspaceRequest(_message.Message):
    __slots__ = ["confirm_slug"]
    CONFIRM_SLUG_FIELD_NUMBER: _ClassVar[int]
    confirm_slug: str
    def __init__(self, confirm_slug: _Optional[str] = ...) -> None: ...

class EraseWorkspaceResponse(_message.Message):
    __slots__ = ["erased", "rows", "tenant_id", "vector_tables"]
    ERASED_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    VECTOR_TABLES_FIELD_NUMBER: _ClassVar[int]
    erased: bool
    rows: int
    tenant_id: str
    vector_tables: int
    def __init__(self, erased: bool = ..., tenant_id: _Optional[str] = ..., rows: _Optional[int] = ..., vector_tables: _Optional[int] = ...) -> None: ...

class ImportTenantRequest(_message.Message):
    __slots__ = ["chunk"]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    chunk: bytes
    def __init__(self, chunk: _Optional[bytes] = ...) -> None: ...

class ImportTenantResponse(_message.Message):
    __slots__ = ["chunks", "edges", "format", "imported", "memories", "source_tenant_id"]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    IMPORTED_FIELD_NUMBER: _ClassVar[int]
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    SOURCE_TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    chunks: int
    edges: int
    format: str
    imported: bool
    memories: int
    source_tenant_id: str
    def __init__(self, imported: bool = ..., memories: _Optional[int] = ..., edges: _Optional[int] = ..., chunks: _Optional[int] = ..., format: _Optional[str] = ..., source_tenant_id: _Optional[str] = ...) -> None: ...
