from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from memory.v1 import memory_pb2 as _memory_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
SCOPE_ADMIN: Scope
SCOPE_READ: Scope
SCOPE_UNSPECIFIED: Scope
SCOPE_WRITE: Scope

class ApiToken(_message.Message):
    __slots__ = ["created_at", "id", "last_used_at", "name", "scopes"]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LAST_USED_AT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    created_at: _timestamp_pb2.Timestamp
    id: str
    last_used_at: _timestamp_pb2.Timestamp
    name: str
    scopes: _containers.RepeatedScalarFieldContainer[Scope]
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., scopes: _Optional[_Iterable[_Union[Scope, str]]] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., last_used_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CompleteSignInRequest(_message.Message):
    __slots__ = ["token"]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: str
    def __init__(self, token: _Optional[str] = ...) -> None: ...

class CompleteSignInResponse(_message.Message):
    __slots__ = ["email", "expires_at", "needs_onboarding", "redirect_path", "session_token", "tenant_id", "user_id"]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    NEEDS_ONBOARDING_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_PATH_FIELD_NUMBER: _ClassVar[int]
    SESSION_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    email: str
    expires_at: _timestamp_pb2.Timestamp
    needs_onboarding: bool
    redirect_path: str
    session_token: str
    tenant_id: str
    user_id: str
    def __init__(self, session_token: _Optional[str] = ..., expires_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., user_id: _Optional[str] = ..., email: _Optional[str] = ..., needs_onboarding: bool = ..., tenant_id: _Optional[str] = ..., redirect_path: _Optional[str] = ...) -> None: ...

class CreateProviderKeyRequest(_message.Message):
    __slots__ = ["api_key", "base_url", "label", "provider"]
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    api_key: str
    base_url: str
    label: str
    provider: str
    def __init__(self, provider: _Optional[str] = ..., label: _Optional[str] = ..., api_key: _Optional[str] = ..., base_url: _Optional[str] = ...) -> None: ...

class CreateProviderKeyResponse(_message.Message):
    __slots__ = ["key"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    key: ProviderKey
    def __init__(self, key: _Optional[_Union[ProviderKey, _Mapping]] = ...) -> None: ...

class CreateTokenRequest(_message.Message):
    __slots__ = ["name", "scopes"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    name: str
    scopes: _containers.RepeatedScalarFieldContainer[Scope]
    def __init__(self, name: _Optional[str] = ..., scopes: _Optional[_Iterable[_Union[Scope, str]]] = ...) -> None: ...

class CreateTokenResponse(_message.Message):
    __slots__ = ["id", "info", "token"]
    ID_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    id: str
    info: ApiToken
    token: str
    def __init__(self, id: _Optional[str] = ..., token: _Optional[str] = ..., info: _Optional[_Union[ApiToken, _Mapping]] = ...) -> None: ...

class DeleteProviderKeyRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DeleteProviderKeyResponse(_message.Message):
    __slots__ = ["deleted"]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: bool
    def __init__(self, deleted: bool = ...) -> None: ...

class ExportAuditRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ExportAuditResponse(_message.Message):
    __slots__ = ["chunk"]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    chunk: bytes
    def __init__(self, chunk: _Optional[bytes] = ...) -> None: ...

class ExportTenantRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ExportTenantResponse(_message.Message):
    __slots__ = ["chunk"]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    chunk: bytes
    def __init__(self, chunk: _Optional[bytes] = ...) -> None: ...

class GetSessionRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetSessionResponse(_message.Message):
    __slots__ = ["credential", "email", "plan", "scopes", "tenant_id", "tenant_slug", "user_id"]
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    TENANT_SLUG_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    credential: str
    email: str
    plan: _memory_pb2.Plan
    scopes: _containers.RepeatedScalarFieldContainer[Scope]
    tenant_id: str
    tenant_slug: str
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., email: _Optional[str] = ..., tenant_id: _Optional[str] = ..., tenant_slug: _Optional[str] = ..., plan: _Optional[_Union[_memory_pb2.Plan, str]] = ..., scopes: _Optional[_Iterable[_Union[Scope, str]]] = ..., credential: _Optional[str] = ...) -> None: ...

class ListProviderKeysRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListProviderKeysResponse(_message.Message):
    __slots__ = ["keys"]
    KEYS_FIELD_NUMBER: _ClassVar[int]
    keys: _containers.RepeatedCompositeFieldContainer[ProviderKey]
    def __init__(self, keys: _Optional[_Iterable[_Union[ProviderKey, _Mapping]]] = ...) -> None: ...

class ListTokensRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListTokensResponse(_message.Message):
    __slots__ = ["tokens"]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    tokens: _containers.RepeatedCompositeFieldContainer[ApiToken]
    def __init__(self, tokens: _Optional[_Iterable[_Union[ApiToken, _Mapping]]] = ...) -> None: ...

class OnboardRequest(_message.Message):
    __slots__ = ["name", "plan", "slug"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    SLUG_FIELD_NUMBER: _ClassVar[int]
    name: str
    plan: _memory_pb2.Plan
    slug: str
    def __init__(self, slug: _Optional[str] = ..., name: _Optional[str] = ..., plan: _Optional[_Union[_memory_pb2.Plan, str]] = ...) -> None: ...

class OnboardResponse(_message.Message):
    __slots__ = ["redirect_url", "tenant_id"]
    REDIRECT_URL_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    redirect_url: str
    tenant_id: str
    def __init__(self, tenant_id: _Optional[str] = ..., redirect_url: _Optional[str] = ...) -> None: ...

class ProviderKey(_message.Message):
    __slots__ = ["base_url", "created_at", "id", "label", "last_test_ok", "last_tested_at", "masked_key", "provider"]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    LAST_TESTED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_TEST_OK_FIELD_NUMBER: _ClassVar[int]
    MASKED_KEY_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    base_url: str
    created_at: _timestamp_pb2.Timestamp
    id: str
    label: str
    last_test_ok: bool
    last_tested_at: _timestamp_pb2.Timestamp
    masked_key: str
    provider: str
    def __init__(self, id: _Optional[str] = ..., provider: _Optional[str] = ..., label: _Optional[str] = ..., masked_key: _Optional[str] = ..., base_url: _Optional[str] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., last_tested_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., last_test_ok: bool = ...) -> None: ...

class RevokeTokenRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class RevokeTokenResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class SignOutRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class SignOutResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class StartSignInRequest(_message.Message):
    __slots__ = ["base_url", "callback_path", "email"]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    CALLBACK_PATH_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    base_url: str
    callback_path: str
    email: str
    def __init__(self, email: _Optional[str] = ..., base_url: _Optional[str] = ..., callback_path: _Optional[str] = ...) -> None: ...

class StartSignInResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class TestProviderKeyRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class TestProviderKeyResponse(_message.Message):
    __slots__ = ["latency_ms", "message", "ok"]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    OK_FIELD_NUMBER: _ClassVar[int]
    latency_ms: int
    message: str
    ok: bool
    def __init__(self, ok: bool = ..., latency_ms: _Optional[int] = ..., message: _Optional[str] = ...) -> None: ...

class Scope(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
