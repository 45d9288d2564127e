from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from memory.v1 import memory_pb2 as _memory_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

BILLING_PERIOD_MONTHLY: BillingPeriod
BILLING_PERIOD_UNSPECIFIED: BillingPeriod
BILLING_PERIOD_YEARLY: BillingPeriod
CANCELLATION_KIND_EXTRAORDINARY: CancellationKind
CANCELLATION_KIND_ORDINARY: CancellationKind
CANCELLATION_KIND_UNSPECIFIED: CancellationKind
DESCRIPTOR: _descriptor.FileDescriptor

class BillingSubscription(_message.Message):
    __slots__ = ["billing", "cancel_at", "current_period_end", "plan", "status"]
    BILLING_FIELD_NUMBER: _ClassVar[int]
    CANCEL_AT_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PERIOD_END_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    billing: BillingPeriod
    cancel_at: _timestamp_pb2.Timestamp
    current_period_end: _timestamp_pb2.Timestamp
    plan: _memory_pb2.Plan
    status: str
    def __init__(self, plan: _Optional[_Union[_memory_pb2.Plan, str]] = ..., billing: _Optional[_Union[BillingPeriod, str]] = ..., status: _Optional[str] = ..., current_period_end: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., cancel_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

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

class GetBillingRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetBillingResponse(_message.Message):
    __slots__ = ["current_plan", "has_payment_customer", "payments_configured", "plans", "subscription"]
    CURRENT_PLAN_FIELD_NUMBER: _ClassVar[int]
    HAS_PAYMENT_CUSTOMER_FIELD_NUMBER: _ClassVar[int]
    PAYMENTS_CONFIGURED_FIELD_NUMBER: _ClassVar[int]
    PLANS_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    current_plan: _memory_pb2.Plan
    has_payment_customer: bool
    payments_configured: bool
    plans: _containers.RepeatedCompositeFieldContainer[PlanOffer]
    subscription: BillingSubscription
    def __init__(self, current_plan: _Optional[_Union[_memory_pb2.Plan, str]] = ..., payments_configured: bool = ..., has_payment_customer: bool = ..., subscription: _Optional[_Union[BillingSubscription, _Mapping]] = ..., plans: _Optional[_Iterable[_Union[PlanOffer, _Mapping]]] = ...) -> None: ...

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

class PlanOffer(_message.Message):
    __slots__ = ["audit_retention_days", "features", "mcp_requests_per_minute_per_ip", "memory_limit", "monthly", "plan", "requests_per_minute_per_token", "yearly"]
    AUDIT_RETENTION_DAYS_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    MCP_REQUESTS_PER_MINUTE_PER_IP_FIELD_NUMBER: _ClassVar[int]
    MEMORY_LIMIT_FIELD_NUMBER: _ClassVar[int]
    MONTHLY_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    REQUESTS_PER_MINUTE_PER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    YEARLY_FIELD_NUMBER: _ClassVar[int]
    audit_retention_days: int
    features: _containers.RepeatedScalarFieldContainer[str]
    mcp_requests_per_minute_per_ip: int
    memory_limit: int
    monthly: PlanPrice
    plan: _memory_pb2.Plan
    requests_per_minute_per_token: int
    yearly: PlanPrice
    def __init__(self, plan: _Optional[_Union[_memory_pb2.Plan, str]] = ..., memory_limit: _Optional[int] = ..., requests_per_minute_per_token: _Optional[int] = ..., audit_retention_days: _Optional[int] = ..., mcp_requests_per_minute_per_ip: _Optional[int] = ..., features: _Optional[_Iterable[str]] = ..., monthly: _Optional[_Union[PlanPrice, _Mapping]] = ..., yearly: _Optional[_Union[PlanPrice, _Mapping]] = ...) -> None: ...

class PlanPrice(_message.Message):
    __slots__ = ["currency", "unit_amount"]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    UNIT_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    currency: str
    unit_amount: int
    def __init__(self, unit_amount: _Optional[int] = ..., currency: _Optional[str] = ...) -> None: ...

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
