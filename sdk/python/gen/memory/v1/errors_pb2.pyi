from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
ERROR_REASON_CONFLICT: ErrorReason
ERROR_REASON_CONTENT_REQUIRED: ErrorReason
ERROR_REASON_FETCH_FAILED: ErrorReason
ERROR_REASON_FETCH_TIMEOUT: ErrorReason
ERROR_REASON_INGEST_FAILED: ErrorReason
ERROR_REASON_INTERNAL: ErrorReason
ERROR_REASON_NOT_FOUND: ErrorReason
ERROR_REASON_NO_TEXT: ErrorReason
ERROR_REASON_OAUTH_REJECTED: ErrorReason
ERROR_REASON_ONBOARDING_REQUIRED: ErrorReason
ERROR_REASON_PAYMENTS_NOT_CONFIGURED: ErrorReason
ERROR_REASON_PERMISSION_DENIED: ErrorReason
ERROR_REASON_PLAN_UPGRADE_REQUIRED: ErrorReason
ERROR_REASON_PROVIDER_ERROR: ErrorReason
ERROR_REASON_RATE_LIMITED: ErrorReason
ERROR_REASON_SUPERSEDED: ErrorReason
ERROR_REASON_TOO_LARGE: ErrorReason
ERROR_REASON_UNAUTHENTICATED: ErrorReason
ERROR_REASON_UNAVAILABLE: ErrorReason
ERROR_REASON_UNSPECIFIED: ErrorReason
ERROR_REASON_UNSUPPORTED_MEDIA_TYPE: ErrorReason
ERROR_REASON_VALIDATION: ErrorReason

class ErrorInfo(_message.Message):
    __slots__ = ["field", "metadata", "reason", "reason_code"]
    class MetadataEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    FIELD_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    REASON_CODE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    field: str
    metadata: _containers.ScalarMap[str, str]
    reason: str
    reason_code: ErrorReason
    def __init__(self, reason: _Optional[str] = ..., field: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., reason_code: _Optional[_Union[ErrorReason, str]] = ...) -> None: ...

class PlanGate(_message.Message):
    __slots__ = ["current_plan", "feature", "limit", "message", "required_plans", "upgrade_url", "used"]
    CURRENT_PLAN_FIELD_NUMBER: _ClassVar[int]
    FEATURE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_PLANS_FIELD_NUMBER: _ClassVar[int]
    UPGRADE_URL_FIELD_NUMBER: _ClassVar[int]
    USED_FIELD_NUMBER: _ClassVar[int]
    current_plan: str
    feature: str
    limit: int
    message: str
    required_plans: _containers.RepeatedScalarFieldContainer[str]
    upgrade_url: str
    used: int
    def __init__(self, feature: _Optional[str] = ..., current_plan: _Optional[str] = ..., required_plans: _Optional[_Iterable[str]] = ..., limit: _Optional[int] = ..., used: _Optional[int] = ..., message: _Optional[str] = ..., upgrade_url: _Optional[str] = ...) -> None: ...

class RetryInfo(_message.Message):
    __slots__ = ["retry_after_seconds"]
    RETRY_AFTER_SECONDS_FIELD_NUMBER: _ClassVar[int]
    retry_after_seconds: int
    def __init__(self, retry_after_seconds: _Optional[int] = ...) -> None: ...

class ErrorReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
