from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from memory.v1 import memory_pb2 as _memory_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

BILLING_PERIOD_MONTHLY: BillingPeriod
BILLING_PERIOD_UNSPECIFIED: BillingPeriod
BILLING_PERIOD_YEARLY: BillingPeriod
CANCELLATION_KIND_EXTRAORDINARY: CancellationKind
CANCELLATION_KIND_ORDINARY: CancellationKind
CANCELLATION_KIND_UNSPECIFIED: CancellationKind
DESCRIPTOR: _descriptor.FileDescriptor

class ConfirmCancellationRequest(_message.Message):
    __slots__ = ["confirmation_token"]
    CONFIRMATION_TOKEN_FIELD_NUMBER: _ClassVar[int]
    confirmation_token: str
    def __init__(self, confirmation_token: _Optional[str] = ...) -> None: ...

class ConfirmCancellationResponse(_message.Message):
    __slots__ = ["message", "received_at"]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_AT_FIELD_NUMBER: _ClassVar[int]
    message: str
    received_at: _timestamp_pb2.Timestamp
    def __init__(self, message: _Optional[str] = ..., received_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CreateCheckoutRequest(_message.Message):
    __slots__ = ["base_url", "billing", "plan"]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    BILLING_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    base_url: str
    billing: BillingPeriod
    plan: _memory_pb2.Plan
    def __init__(self, plan: _Optional[_Union[_memory_pb2.Plan, str]] = ..., billing: _Optional[_Union[BillingPeriod, str]] = ..., base_url: _Optional[str] = ...) -> None: ...

class CreateCheckoutResponse(_message.Message):
    __slots__ = ["url"]
    URL_FIELD_NUMBER: _ClassVar[int]
    url: str
    def __init__(self, url: _Optional[str] = ...) -> None: ...

class CreatePortalSessionRequest(_message.Message):
    __slots__ = ["base_url"]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    base_url: str
    def __init__(self, base_url: _Optional[str] = ...) -> None: ...

class CreatePortalSessionResponse(_message.Message):
    __slots__ = ["url"]
    URL_FIELD_NUMBER: _ClassVar[int]
    url: str
    def __init__(self, url: _Optional[str] = ...) -> None: ...

class HandlePaymentEventRequest(_message.Message):
    __slots__ = ["payload", "signature"]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    payload: bytes
    signature: str
    def __init__(self, payload: _Optional[bytes] = ..., signature: _Optional[str] = ...) -> None: ...

class HandlePaymentEventResponse(_message.Message):
    __slots__ = ["event_type", "processed"]
    EVENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    PROCESSED_FIELD_NUMBER: _ClassVar[int]
    event_type: str
    processed: bool
    def __init__(self, processed: bool = ..., event_type: _Optional[str] = ...) -> None: ...

class RequestCancellationRequest(_message.Message):
    __slots__ = ["email", "kind", "reason", "wished_date", "workspace"]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    WISHED_DATE_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_FIELD_NUMBER: _ClassVar[int]
    email: str
    kind: CancellationKind
    reason: str
    wished_date: str
    workspace: str
    def __init__(self, email: _Optional[str] = ..., reason: _Optional[str] = ..., workspace: _Optional[str] = ..., kind: _Optional[_Union[CancellationKind, str]] = ..., wished_date: _Optional[str] = ...) -> None: ...

class RequestCancellationResponse(_message.Message):
    __slots__ = ["confirmation_token", "expires_at", "message"]
    CONFIRMATION_TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    confirmation_token: str
    expires_at: _timestamp_pb2.Timestamp
    message: str
    def __init__(self, message: _Optional[str] = ..., confirmation_token: _Optional[str] = ..., expires_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class BillingPeriod(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class CancellationKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
