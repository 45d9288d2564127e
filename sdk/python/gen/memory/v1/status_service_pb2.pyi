from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ComponentStatus(_message.Message):
    __slots__ = ["detail", "latency_ms", "name", "status"]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    detail: str
    latency_ms: float
    name: str
    status: str
    def __init__(self, name: _Optional[str] = ..., status: _Optional[str] = ..., detail: _Optional[str] = ..., latency_ms: _Optional[float] = ...) -> None: ...

class GetStatusRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetStatusResponse(_message.Message):
    __slots__ = ["components", "embedding_provider", "reranker", "service", "status", "version"]
    COMPONENTS_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_PROVIDER_FIELD_NUMBER: _ClassVar[int]
    RERANKER_FIELD_NUMBER: _ClassVar[int]
    SERVICE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    components: _containers.RepeatedCompositeFieldContainer[ComponentStatus]
    embedding_provider: str
    reranker: str
    service: str
    status: str
    version: str
    def __init__(self, status: _Optional[str] = ..., service: _Optional[str] = ..., version: _Optional[str] = ..., components: _Optional[_Iterable[_Union[ComponentStatus, _Mapping]]] = ..., embedding_provider: _Optional[str] = ..., reranker: _Optional[str] = ...) -> None: ...
