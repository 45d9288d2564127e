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
TOKEN_KIND_API: TokenKind
TOKEN_KIND_OAUTH: TokenKind
TOKEN_KIND_UNSPECIFIED: TokenKind

class ApiToken(_message.Message):
    __slots__ = ["created_at", "id", "kind", "last_used_at", "name", "oauth_client_id", "scopes"]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LAST_USED_AT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OAUTH_CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    created_at: _timestamp_pb2.Timestamp
    id: str
    kind: TokenKind
    last_used_at: _timestamp_pb2.Timestamp
    name: str
    oauth_client_id: str
    scopes: _containers.RepeatedScalarFieldContainer[Scope]
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., scopes: _Optional[_Iterable[_Union[Scope, str]]] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., last_used_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., kind: _Optional[_Union[TokenKind, str]] = ..., oauth_client_id: _Optional[str] = ...) -> None: ...

class AuthorizeOAuthClientRequest(_message.Message):
    __slots__ = ["client_id", "code_challenge", "code_challenge_method", "redirect_uri", "redirect_uri_given", "resource", "scopes"]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    CODE_CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    CODE_CHALLENGE_METHOD_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_URI_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_URI_GIVEN_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    client_id: str
    code_challenge: str
    code_challenge_method: str
    redirect_uri: str
    redirect_uri_given: bool
    resource: str
    scopes: _containers.RepeatedScalarFieldContainer[Scope]
    def __init__(self, client_id: _Optional[str] = ..., redirect_uri: _Optional[str] = ..., redirect_uri_given: bool = ..., scopes: _Optional[_Iterable[_Union[Scope, str]]] = ..., code_challenge: _Optional[str] = ..., code_challenge_method: _Optional[str] = ..., resource: _Optional[str] = ...) -> None: ...

class AuthorizeOAuthClientResponse(_message.Message):
    __slots__ = ["code", "expires_in_seconds"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    code: str
    expires_in_seconds: int
    def __init__(self, code: _Optional[str] = ..., expires_in_seconds: _Optional[int] = ...) -> None: ...

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
    __slots__ = ["api_key", "base_url", "label", "model", "provider"]
    API_KEY_FIELD_NUMBER: _ClassVar[int]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    api_key: str
    base_url: str
    label: str
    model: str
    provider: str
    def __init__(self, provider: _Optional[str] = ..., label: _Optional[str] = ..., api_key: _Optional[str] = ..., base_url: _Optional[str] = ..., model: _Optional[str] = ...) -> None: ...

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

class ExchangeOAuthGrantRequest(_message.Message):
    __slots__ = ["client_id", "client_secret", "code", "code_verifier", "grant_type", "redirect_uri", "refresh_token", "resource", "scopes"]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    CODE_VERIFIER_FIELD_NUMBER: _ClassVar[int]
    GRANT_TYPE_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_URI_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    client_id: str
    client_secret: str
    code: str
    code_verifier: str
    grant_type: str
    redirect_uri: str
    refresh_token: str
    resource: str
    scopes: _containers.RepeatedScalarFieldContainer[Scope]
    def __init__(self, client_id: _Optional[str] = ..., client_secret: _Optional[str] = ..., grant_type: _Optional[str] = ..., code: _Optional[str] = ..., code_verifier: _Optional[str] = ..., redirect_uri: _Optional[str] = ..., refresh_token: _Optional[str] = ..., scopes: _Optional[_Iterable[_Union[Scope, str]]] = ..., resource: _Optional[str] = ...) -> None: ...

class ExchangeOAuthGrantResponse(_message.Message):
    __slots__ = ["access_token", "expires_in_seconds", "refresh_token", "scopes"]
    ACCESS_TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_SECONDS_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    access_token: str
    expires_in_seconds: int
    refresh_token: str
    scopes: _containers.RepeatedScalarFieldContainer[Scope]
    def __init__(self, access_token: _Optional[str] = ..., expires_in_seconds: _Optional[int] = ..., refresh_token: _Optional[str] = ..., scopes: _Optional[_Iterable[_Union[Scope, str]]] = ...) -> None: ...

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

class GetModelSelectionRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetModelSelectionResponse(_message.Message):
    __slots__ = ["selection"]
    SELECTION_FIELD_NUMBER: _ClassVar[int]
    selection: ModelSelection
    def __init__(self, selection: _Optional[_Union[ModelSelection, _Mapping]] = ...) -> None: ...

class GetOAuthClientRequest(_message.Message):
    __slots__ = ["client_id"]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    client_id: str
    def __init__(self, client_id: _Optional[str] = ...) -> None: ...

class GetOAuthClientResponse(_message.Message):
    __slots__ = ["client"]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    client: OAuthClient
    def __init__(self, client: _Optional[_Union[OAuthClient, _Mapping]] = ...) -> None: ...

class GetSessionRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetSessionResponse(_message.Message):
    __slots__ = ["credential", "email", "features", "plan", "scopes", "tenant_id", "tenant_slug", "token_id", "user_id"]
    CREDENTIAL_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    TENANT_ID_FIELD_NUMBER: _ClassVar[int]
    TENANT_SLUG_FIELD_NUMBER: _ClassVar[int]
    TOKEN_ID_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    credential: str
    email: str
    features: _containers.RepeatedScalarFieldContainer[str]
    plan: _memory_pb2.Plan
    scopes: _containers.RepeatedScalarFieldContainer[Scope]
    tenant_id: str
    tenant_slug: str
    token_id: str
    user_id: str
    def __init__(self, user_id: _Optional[str] = ..., email: _Optional[str] = ..., tenant_id: _Optional[str] = ..., tenant_slug: _Optional[str] = ..., plan: _Optional[_Union[_memory_pb2.Plan, str]] = ..., scopes: _Optional[_Iterable[_Union[Scope, str]]] = ..., credential: _Optional[str] = ..., features: _Optional[_Iterable[str]] = ..., token_id: _Optional[str] = ...) -> None: ...

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

class ModelSelection(_message.Message):
    __slots__ = ["active_embedding_space", "embedding_key_id", "reembed", "rerank_key_id"]
    ACTIVE_EMBEDDING_SPACE_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_KEY_ID_FIELD_NUMBER: _ClassVar[int]
    REEMBED_FIELD_NUMBER: _ClassVar[int]
    RERANK_KEY_ID_FIELD_NUMBER: _ClassVar[int]
    active_embedding_space: str
    embedding_key_id: str
    reembed: ReembedProgress
    rerank_key_id: str
    def __init__(self, embedding_key_id: _Optional[str] = ..., rerank_key_id: _Optional[str] = ..., active_embedding_space: _Optional[str] = ..., reembed: _Optional[_Union[ReembedProgress, _Mapping]] = ...) -> None: ...

class OAuthClient(_message.Message):
    __slots__ = ["client_id", "client_id_metadata_document", "client_name", "client_uri", "grant_types", "issued_at", "logo_uri", "redirect_uris", "scopes", "software_id", "software_version", "token_endpoint_auth_method"]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ID_METADATA_DOCUMENT_FIELD_NUMBER: _ClassVar[int]
    CLIENT_NAME_FIELD_NUMBER: _ClassVar[int]
    CLIENT_URI_FIELD_NUMBER: _ClassVar[int]
    GRANT_TYPES_FIELD_NUMBER: _ClassVar[int]
    ISSUED_AT_FIELD_NUMBER: _ClassVar[int]
    LOGO_URI_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_URIS_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    SOFTWARE_ID_FIELD_NUMBER: _ClassVar[int]
    SOFTWARE_VERSION_FIELD_NUMBER: _ClassVar[int]
    TOKEN_ENDPOINT_AUTH_METHOD_FIELD_NUMBER: _ClassVar[int]
    client_id: str
    client_id_metadata_document: bool
    client_name: str
    client_uri: str
    grant_types: _containers.RepeatedScalarFieldContainer[str]
    issued_at: _timestamp_pb2.Timestamp
    logo_uri: str
    redirect_uris: _containers.RepeatedScalarFieldContainer[str]
    scopes: _containers.RepeatedScalarFieldContainer[Scope]
    software_id: str
    software_version: str
    token_endpoint_auth_method: str
    def __init__(self, client_id: _Optional[str] = ..., client_name: _Optional[str] = ..., redirect_uris: _Optional[_Iterable[str]] = ..., token_endpoint_auth_method: _Optional[str] = ..., scopes: _Optional[_Iterable[_Union[Scope, str]]] = ..., client_uri: _Optional[str] = ..., logo_uri: _Optional[str] = ..., issued_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., grant_types: _Optional[_Iterable[str]] = ..., software_id: _Optional[str] = ..., software_version: _Optional[str] = ..., client_id_metadata_document: bool = ...) -> None: ...

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
    __slots__ = ["base_url", "created_at", "dimension", "id", "label", "last_test_error", "last_test_ok", "last_tested_at", "last_used_at", "masked_key", "model", "provider", "used_for"]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    LAST_TESTED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_TEST_ERROR_FIELD_NUMBER: _ClassVar[int]
    LAST_TEST_OK_FIELD_NUMBER: _ClassVar[int]
    LAST_USED_AT_FIELD_NUMBER: _ClassVar[int]
    MASKED_KEY_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    USED_FOR_FIELD_NUMBER: _ClassVar[int]
    base_url: str
    created_at: _timestamp_pb2.Timestamp
    dimension: int
    id: str
    label: str
    last_test_error: str
    last_test_ok: bool
    last_tested_at: _timestamp_pb2.Timestamp
    last_used_at: _timestamp_pb2.Timestamp
    masked_key: str
    model: str
    provider: str
    used_for: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., provider: _Optional[str] = ..., label: _Optional[str] = ..., masked_key: _Optional[str] = ..., base_url: _Optional[str] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., last_tested_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., last_test_ok: bool = ..., model: _Optional[str] = ..., dimension: _Optional[int] = ..., last_used_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., last_test_error: _Optional[str] = ..., used_for: _Optional[_Iterable[str]] = ...) -> None: ...

class ReembedProgress(_message.Message):
    __slots__ = ["done", "target_space", "total"]
    DONE_FIELD_NUMBER: _ClassVar[int]
    TARGET_SPACE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    done: int
    target_space: str
    total: int
    def __init__(self, target_space: _Optional[str] = ..., total: _Optional[int] = ..., done: _Optional[int] = ...) -> None: ...

class RegisterOAuthClientRequest(_message.Message):
    __slots__ = ["client_name", "client_uri", "grant_types", "logo_uri", "redirect_uris", "response_types", "scope", "software_id", "software_version", "token_endpoint_auth_method"]
    CLIENT_NAME_FIELD_NUMBER: _ClassVar[int]
    CLIENT_URI_FIELD_NUMBER: _ClassVar[int]
    GRANT_TYPES_FIELD_NUMBER: _ClassVar[int]
    LOGO_URI_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_URIS_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_TYPES_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SOFTWARE_ID_FIELD_NUMBER: _ClassVar[int]
    SOFTWARE_VERSION_FIELD_NUMBER: _ClassVar[int]
    TOKEN_ENDPOINT_AUTH_METHOD_FIELD_NUMBER: _ClassVar[int]
    client_name: str
    client_uri: str
    grant_types: _containers.RepeatedScalarFieldContainer[str]
    logo_uri: str
    redirect_uris: _containers.RepeatedScalarFieldContainer[str]
    response_types: _containers.RepeatedScalarFieldContainer[str]
    scope: str
    software_id: str
    software_version: str
    token_endpoint_auth_method: str
    def __init__(self, client_name: _Optional[str] = ..., redirect_uris: _Optional[_Iterable[str]] = ..., token_endpoint_auth_method: _Optional[str] = ..., grant_types: _Optional[_Iterable[str]] = ..., response_types: _Optional[_Iterable[str]] = ..., scope: _Optional[str] = ..., client_uri: _Optional[str] = ..., logo_uri: _Optional[str] = ..., software_id: _Optional[str] = ..., software_version: _Optional[str] = ...) -> None: ...

class RegisterOAuthClientResponse(_message.Message):
    __slots__ = ["client", "client_secret"]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    client: OAuthClient
    client_secret: str
    def __init__(self, client: _Optional[_Union[OAuthClient, _Mapping]] = ..., client_secret: _Optional[str] = ...) -> None: ...

class RevokeOAuthTokenRequest(_message.Message):
    __slots__ = ["client_id", "client_secret", "token"]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    client_id: str
    client_secret: str
    token: str
    def __init__(self, client_id: _Optional[str] = ..., client_secret: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class RevokeOAuthTokenResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

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
    __slots__ = ["dimension", "error", "latency_ms", "message", "model", "ok"]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    OK_FIELD_NUMBER: _ClassVar[int]
    dimension: int
    error: str
    latency_ms: int
    message: str
    model: str
    ok: bool
    def __init__(self, ok: bool = ..., latency_ms: _Optional[int] = ..., message: _Optional[str] = ..., dimension: _Optional[int] = ..., model: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class UpdateModelSelectionRequest(_message.Message):
    __slots__ = ["embedding_key_id", "rerank_key_id"]
    EMBEDDING_KEY_ID_FIELD_NUMBER: _ClassVar[int]
    RERANK_KEY_ID_FIELD_NUMBER: _ClassVar[int]
    embedding_key_id: str
    rerank_key_id: str
    def __init__(self, embedding_key_id: _Optional[str] = ..., rerank_key_id: _Optional[str] = ...) -> None: ...

class UpdateModelSelectionResponse(_message.Message):
    __slots__ = ["selection"]
    SELECTION_FIELD_NUMBER: _ClassVar[int]
    selection: ModelSelection
    def __init__(self, selection: _Optional[_Union[ModelSelection, _Mapping]] = ...) -> None: ...

class Scope(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class TokenKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
