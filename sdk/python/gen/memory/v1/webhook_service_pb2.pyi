from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DELIVERY_STATE_DEAD: DeliveryState
DELIVERY_STATE_DELIVERED: DeliveryState
DELIVERY_STATE_PENDING: DeliveryState
DELIVERY_STATE_UNSPECIFIED: DeliveryState
DESCRIPTOR: _descriptor.FileDescriptor

class CreateSubscriptionRequest(_message.Message):
    __slots__ = ["description", "event_kinds", "url"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EVENT_KINDS_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    description: str
    event_kinds: _containers.RepeatedScalarFieldContainer[str]
    url: str
    def __init__(self, url: _Optional[str] = ..., event_kinds: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ...) -> None: ...

class CreateSubscriptionResponse(_message.Message):
    __slots__ = ["secret", "subscription"]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    secret: str
    subscription: WebhookSubscription
    def __init__(self, subscription: _Optional[_Union[WebhookSubscription, _Mapping]] = ..., secret: _Optional[str] = ...) -> None: ...

class DeleteSubscriptionRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DeleteSubscriptionResponse(_message.Message):
    __slots__ = ["deleted"]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: bool
    def __init__(self, deleted: bool = ...) -> None: ...

class GetSubscriptionRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetSubscriptionResponse(_message.Message):
    __slots__ = ["subscription"]
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: WebhookSubscription
    def __init__(self, subscription: _Optional[_Union[WebhookSubscription, _Mapping]] = ...) -> None: ...

class ListDeliveriesRequest(_message.Message):
    __slots__ = ["limit", "subscription_id"]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    limit: int
    subscription_id: str
    def __init__(self, subscription_id: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class ListDeliveriesResponse(_message.Message):
    __slots__ = ["deliveries"]
    DELIVERIES_FIELD_NUMBER: _ClassVar[int]
    deliveries: _containers.RepeatedCompositeFieldContainer[WebhookDelivery]
    def __init__(self, deliveries: _Optional[_Iterable[_Union[WebhookDelivery, _Mapping]]] = ...) -> None: ...

class ListSubscriptionsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListSubscriptionsResponse(_message.Message):
    __slots__ = ["subscriptions"]
    SUBSCRIPTIONS_FIELD_NUMBER: _ClassVar[int]
    subscriptions: _containers.RepeatedCompositeFieldContainer[WebhookSubscription]
    def __init__(self, subscriptions: _Optional[_Iterable[_Union[WebhookSubscription, _Mapping]]] = ...) -> None: ...

class ReactivateSubscriptionRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ReactivateSubscriptionResponse(_message.Message):
    __slots__ = ["subscription"]
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: WebhookSubscription
    def __init__(self, subscription: _Optional[_Union[WebhookSubscription, _Mapping]] = ...) -> None: ...

class RotateSecretRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class RotateSecretResponse(_message.Message):
    __slots__ = ["secret", "subscription"]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    secret: str
    subscription: WebhookSubscription
    def __init__(self, subscription: _Optional[_Union[WebhookSubscription, _Mapping]] = ..., secret: _Optional[str] = ...) -> None: ...

class SendTestEventRequest(_message.Message):
    __slots__ = ["subscription_id"]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    subscription_id: str
    def __init__(self, subscription_id: _Optional[str] = ...) -> None: ...

class SendTestEventResponse(_message.Message):
    __slots__ = ["delivery_id"]
    DELIVERY_ID_FIELD_NUMBER: _ClassVar[int]
    delivery_id: str
    def __init__(self, delivery_id: _Optional[str] = ...) -> None: ...

class UpdateSubscriptionRequest(_message.Message):
    __slots__ = ["description", "event_kinds", "id", "url"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EVENT_KINDS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    description: str
    event_kinds: _containers.RepeatedScalarFieldContainer[str]
    id: str
    url: str
    def __init__(self, id: _Optional[str] = ..., url: _Optional[str] = ..., event_kinds: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ...) -> None: ...

class UpdateSubscriptionResponse(_message.Message):
    __slots__ = ["subscription"]
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    subscription: WebhookSubscription
    def __init__(self, subscription: _Optional[_Union[WebhookSubscription, _Mapping]] = ...) -> None: ...

class WebhookDelivery(_message.Message):
    __slots__ = ["attempts", "created_at", "event", "id", "last_attempt_at", "last_error", "last_status", "next_attempt_at", "occurred_at", "state", "subscription_id"]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LAST_ATTEMPT_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    LAST_STATUS_FIELD_NUMBER: _ClassVar[int]
    NEXT_ATTEMPT_AT_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_ID_FIELD_NUMBER: _ClassVar[int]
    attempts: int
    created_at: _timestamp_pb2.Timestamp
    event: str
    id: str
    last_attempt_at: _timestamp_pb2.Timestamp
    last_error: str
    last_status: int
    next_attempt_at: _timestamp_pb2.Timestamp
    occurred_at: _timestamp_pb2.Timestamp
    state: DeliveryState
    subscription_id: str
    def __init__(self, id: _Optional[str] = ..., subscription_id: _Optional[str] = ..., event: _Optional[str] = ..., state: _Optional[_Union[DeliveryState, str]] = ..., attempts: _Optional[int] = ..., last_status: _Optional[int] = ..., next_attempt_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., last_error: _Optional[str] = ..., occurred_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., last_attempt_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class WebhookSubscription(_message.Message):
    __slots__ = ["active", "consecutive_failures", "created_at", "deactivated_at", "description", "event_kinds", "id", "previous_secret_expires_at", "url"]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    CONSECUTIVE_FAILURES_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    DEACTIVATED_AT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EVENT_KINDS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SECRET_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    active: bool
    consecutive_failures: int
    created_at: _timestamp_pb2.Timestamp
    deactivated_at: _timestamp_pb2.Timestamp
    description: str
    event_kinds: _containers.RepeatedScalarFieldContainer[str]
    id: str
    previous_secret_expires_at: _timestamp_pb2.Timestamp
    url: str
    def __init__(self, id: _Optional[str] = ..., url: _Optional[str] = ..., event_kinds: _Optional[_Iterable[str]] = ..., active: bool = ..., consecutive_failures: _Optional[int] = ..., created_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., deactivated_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., description: _Optional[str] = ..., previous_secret_expires_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class DeliveryState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
