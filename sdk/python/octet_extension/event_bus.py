"""Bounded, session-isolated event bus: the enforcement kernel and the extension-side participant.

The kernel (EventBusKernel over a TopicRegistry and per-subscription BoundedQueues) is what a host
runs for one session: topics are typed records named ``bus.<owner>.<name>``, only the owner's live
generation may publish, every payload is checked by validate_payload before anything is queued,
and the envelope (publisher, generation, sequence, time) is written by the kernel, never taken
from the payload. HostEventBus is the extension's side of the API 0.3 wire: it sends
``bus/declare`` and ``bus/publish`` through a request function the runtime hands it, and refuses
locally whatever the host would refuse.

Left out on purpose: the transport and the 0.3 canonical wire (the caller supplies ``request``),
push delivery and scheduling (subscribers pull with ``receive``), persistence. Everything fails
closed: a value is accepted as is or refused with an EventBusError; nothing is coerced, trimmed
or dropped silently. Errors name the rule and the declared field, never the refused value.
Bounds and defaults the spec leaves open are recorded in docs/decisions.md, "Python event bus".
"""
from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Deque, Dict, Iterable, List, Mapping, Optional, Tuple

from ._bus_payload import (
    FIELD_TYPES, MAX_FIELD_NAME_BYTES, MAX_FIELDS, MAX_OWNER_BYTES, MAX_PAYLOAD_BYTES,
    MAX_SAFE_INTEGER, MAX_STRING_BYTES, MAX_TOPIC_BYTES, MAX_TOPIC_NAME_BYTES, EventBusError,
    PayloadRejected, check_fields, check_segment, parse_topic, validate_payload,
)

__all__ = [
    "BoundedQueue", "BusEvent", "Delivery", "EventBusError", "EventBusKernel", "HostEventBus",
    "PayloadRejected", "PublishReceipt", "TopicRegistry", "TopicSpec", "validate_payload",
    "FIELD_TYPES", "MAX_OWNER_BYTES", "MAX_TOPIC_NAME_BYTES", "MAX_TOPIC_BYTES", "MAX_FIELDS",
    "MAX_FIELD_NAME_BYTES", "MAX_STRING_BYTES", "MAX_PAYLOAD_BYTES", "MAX_SAFE_INTEGER",
    "MAX_TOPICS_PER_OWNER", "MAX_TOPICS", "MAX_SUBSCRIPTIONS_PER_TOPIC",
    "MAX_SUBSCRIPTIONS_PER_SUBSCRIBER", "DEFAULT_QUEUE_CAPACITY", "MAX_QUEUE_CAPACITY",
]

# Kernel bounds; the name and payload bounds live with the payload rules. Each has a test at the
# limit and one past it.
MAX_TOPICS_PER_OWNER = 64
MAX_TOPICS = 256                # per kernel, that is per session
MAX_SUBSCRIPTIONS_PER_TOPIC = 32
MAX_SUBSCRIPTIONS_PER_SUBSCRIBER = 64
DEFAULT_QUEUE_CAPACITY = 64
MAX_QUEUE_CAPACITY = 1024


class BoundedQueue:
    """FIFO of at most ``capacity`` items. A full queue refuses the newest item and counts it,
    so the reader sees an explicit gap after what it already had, never a silent one. Not
    thread-safe by itself: the kernel serializes access."""

    def __init__(self, capacity: int = DEFAULT_QUEUE_CAPACITY) -> None:
        if type(capacity) is not int or not 1 <= capacity <= MAX_QUEUE_CAPACITY:
            raise EventBusError("bounds_exceeded", f"queue capacity must be 1..{MAX_QUEUE_CAPACITY}")
        self._capacity = capacity
        self._items: Deque[Any] = deque()
        self._dropped = 0

    @property
    def capacity(self) -> int:
        return self._capacity

    @property
    def dropped(self) -> int:
        """Items refused since the last take()."""
        return self._dropped

    def __len__(self) -> int:
        return len(self._items)

    def offer(self, item: Any) -> bool:
        if len(self._items) >= self._capacity:
            self._dropped += 1
            return False
        self._items.append(item)
        return True

    def take(self, max_items: int) -> Tuple[List[Any], int]:
        """Up to ``max_items`` oldest items and the drop count, which is then reset."""
        if type(max_items) is not int or not 1 <= max_items <= MAX_QUEUE_CAPACITY:
            raise EventBusError("bounds_exceeded", f"max_items must be 1..{MAX_QUEUE_CAPACITY}")
        items = [self._items.popleft() for _ in range(min(max_items, len(self._items)))]
        dropped, self._dropped = self._dropped, 0
        return items, dropped


@dataclass(frozen=True)
class TopicSpec:
    topic: str
    owner: str
    name: str
    generation: int
    fields: Mapping[str, str]


@dataclass(frozen=True)
class BusEvent:
    """One publication. Everything but ``payload`` is written by the kernel."""
    topic: str
    publisher: str
    generation: int
    sequence: int
    published_at: float
    payload: Mapping[str, Any]


@dataclass(frozen=True)
class Delivery:
    events: Tuple[BusEvent, ...]
    dropped: int    # publications refused by a full queue since the previous receive
    closed: bool    # the topic was retired or redeclared: what is queued is all there will be


@dataclass(frozen=True)
class PublishReceipt:
    topic: str
    sequence: int
    delivered: int  # subscriptions that queued the event
    dropped: int    # subscriptions whose queue was full


def _check_generation(generation: Any) -> int:
    if type(generation) is not int or generation < 0:
        raise EventBusError("invalid_participant", "generation must be a non-negative integer")
    return generation


class TopicRegistry:
    """Declared topics of one session. A topic belongs to the owner its name says, and to the
    generation that declared it; a newer generation of the same owner may take it over."""

    def __init__(self) -> None:
        self._topics: Dict[str, TopicSpec] = {}

    def __len__(self) -> int:
        return len(self._topics)

    def __contains__(self, topic: object) -> bool:
        return topic in self._topics

    def register(self, topic: str, owner: str, generation: int, fields: Mapping[str, str]) -> TopicSpec:
        topic_owner, name = parse_topic(topic)
        check_segment("owner", owner, MAX_OWNER_BYTES, "invalid_participant")
        _check_generation(generation)
        if topic_owner != owner:
            raise EventBusError("not_owner", f"{owner!r} may only declare topics bus.{owner}.<name>")
        schema = check_fields(fields)
        current = self._topics.get(topic)
        if current is not None:
            if generation < current.generation:
                raise EventBusError("stale_generation", f"{topic} is held by a newer generation")
            if generation == current.generation:
                if dict(current.fields) == schema:
                    return current      # an identical redeclaration is idempotent
                raise EventBusError("duplicate_topic", f"{topic} is already declared with other fields")
        else:
            if len(self._topics) >= MAX_TOPICS:
                raise EventBusError("bounds_exceeded", f"at most {MAX_TOPICS} topics per session")
            if sum(t.owner == owner for t in self._topics.values()) >= MAX_TOPICS_PER_OWNER:
                raise EventBusError("bounds_exceeded", f"at most {MAX_TOPICS_PER_OWNER} topics per owner")
        spec = TopicSpec(topic, owner, name, generation, MappingProxyType(schema))
        self._topics[topic] = spec
        return spec

    def get(self, topic: str) -> TopicSpec:
        parse_topic(topic)
        spec = self._topics.get(topic)
        if spec is None:
            raise EventBusError("unknown_topic", f"{topic} is not declared")
        return spec

    def retire(self, owner: str, generation: int) -> List[str]:
        """Remove the topics ``owner`` declared in ``generation``; returns their names."""
        gone = [t for t, s in self._topics.items() if s.owner == owner and s.generation == generation]
        for topic in gone:
            del self._topics[topic]
        return gone


class _Subscription:
    __slots__ = ("subscriber", "generation", "topic", "spec", "queue", "closed")

    def __init__(self, subscriber: str, generation: int, spec: TopicSpec, capacity: int) -> None:
        self.subscriber, self.generation, self.spec = subscriber, generation, spec
        self.topic = spec.topic
        self.queue = BoundedQueue(capacity)
        self.closed = False


class EventBusKernel:
    """The bus of one session. Participants are named by the host (an extension name and its
    process generation, never taken from the extension); calls are serialized by one lock."""

    def __init__(self, *, registry: Optional[TopicRegistry] = None,
                 clock: Callable[[], float] = time.time) -> None:
        self._registry = registry if registry is not None else TopicRegistry()
        self._clock = clock
        self._lock = threading.Lock()
        self._subs: Dict[str, _Subscription] = {}
        self._sequences: Dict[str, Tuple[TopicSpec, int]] = {}
        self._next_id = 1

    @property
    def registry(self) -> TopicRegistry:
        return self._registry

    def declare(self, owner: str, generation: int, topic: str, fields: Mapping[str, str]) -> TopicSpec:
        with self._lock:
            spec = self._registry.register(topic, owner, generation, fields)
            # A newer generation took the topic over: its schema may differ, so close the old
            # subscriptions; subscribers subscribe again to the new declaration.
            self._close(lambda s: s.topic == spec.topic and s.spec is not spec)
            return spec

    def subscribe(self, subscriber: str, generation: int, topic: str, *,
                  capacity: int = DEFAULT_QUEUE_CAPACITY) -> str:
        with self._lock:
            check_segment("subscriber", subscriber, MAX_OWNER_BYTES, "invalid_participant")
            _check_generation(generation)
            spec = self._registry.get(topic)
            if sum(s.spec is spec and not s.closed for s in self._subs.values()) >= MAX_SUBSCRIPTIONS_PER_TOPIC:
                raise EventBusError("bounds_exceeded", f"at most {MAX_SUBSCRIPTIONS_PER_TOPIC} subscriptions per topic")
            if sum(s.subscriber == subscriber for s in self._subs.values()) >= MAX_SUBSCRIPTIONS_PER_SUBSCRIBER:
                raise EventBusError("bounds_exceeded",
                                    f"at most {MAX_SUBSCRIPTIONS_PER_SUBSCRIBER} subscriptions per subscriber")
            sub = _Subscription(subscriber, generation, spec, capacity)
            sub_id = f"sub-{self._next_id}"
            self._next_id += 1
            self._subs[sub_id] = sub
            return sub_id

    def publish(self, owner: str, generation: int, topic: str, payload: Any) -> PublishReceipt:
        with self._lock:
            spec = self._registry.get(topic)
            # Ownership before the payload is looked at: a stranger learns nothing of the schema.
            if owner != spec.owner:
                raise EventBusError("not_owner", f"only {spec.owner!r} may publish on {topic}")
            if generation != spec.generation:
                raise EventBusError("stale_generation", f"{topic} belongs to another generation")
            checked = validate_payload(spec.fields, payload)
            last = self._sequences.get(topic)
            sequence = last[1] + 1 if last is not None and last[0] is spec else 1
            self._sequences[topic] = (spec, sequence)
            event = BusEvent(topic, owner, generation, sequence, self._clock(), checked)
            delivered = dropped = 0
            for sub in self._subs.values():
                if sub.spec is spec and not sub.closed:
                    if sub.queue.offer(event):
                        delivered += 1
                    else:
                        dropped += 1
            return PublishReceipt(topic, sequence, delivered, dropped)

    def receive(self, subscriber: str, generation: int, subscription_id: str, *,
                max_items: int = DEFAULT_QUEUE_CAPACITY) -> Delivery:
        with self._lock:
            sub = self._own(subscriber, generation, subscription_id)
            items, dropped = sub.queue.take(max_items)
            if sub.closed and not len(sub.queue):
                del self._subs[subscription_id]    # the last delivery says closed; then it is gone
            return Delivery(tuple(items), dropped, sub.closed)

    def unsubscribe(self, subscriber: str, generation: int, subscription_id: str) -> None:
        with self._lock:
            self._own(subscriber, generation, subscription_id)
            del self._subs[subscription_id]

    def retire(self, participant: str, generation: int) -> None:
        """A generation ended: its topics go (closing their subscriptions) and so do its own
        subscriptions. Nothing issued to it works in the next generation."""
        with self._lock:
            for topic in self._registry.retire(participant, generation):
                self._sequences.pop(topic, None)
                self._close(lambda s, t=topic: s.topic == t)
            for sub_id in [i for i, s in self._subs.items()
                           if s.subscriber == participant and s.generation == generation]:
                del self._subs[sub_id]

    def _own(self, subscriber: str, generation: int, subscription_id: str) -> _Subscription:
        sub = self._subs.get(subscription_id) if isinstance(subscription_id, str) else None
        # One error for "no such id" and "not yours", so ids cannot be probed.
        if sub is None or sub.subscriber != subscriber or sub.generation != generation:
            raise EventBusError("unknown_subscription", "no such subscription for this participant")
        return sub

    def _close(self, match: Callable[[_Subscription], bool]) -> None:
        for sub in self._subs.values():
            if match(sub):
                sub.closed = True


# ---------------------------------------------------------------------------------------------
# The extension's side

class HostEventBus:
    """The extension-side participant on an API 0.3 host that bound ``event_bus``.

    ``request(method, params)`` sends one request parented as the runtime decides and returns its
    result; ``methods`` are the bus methods the host selected. A method the host did not select
    fails closed here, before anything is sent. Params never carry identity, generation or time:
    the host derives those.
    """

    def __init__(self, request: Optional[Callable[[str, Mapping[str, Any]], Any]],
                 methods: Iterable[str] = ()) -> None:
        self._request = request
        self._methods = frozenset(methods)
        self._declared: Dict[str, Mapping[str, str]] = {}

    def declare(self, name: str, fields: Mapping[str, str]) -> str:
        """Declare ``bus.<this extension>.<name>``; returns the topic the host issued."""
        self._send_check("bus/declare")
        check_segment("topic name", name, MAX_TOPIC_NAME_BYTES)
        schema = check_fields(fields)
        result = self._send("bus/declare", {"name": name, "fields": dict(schema)})
        topic = result.get("topic") if isinstance(result, Mapping) else None
        try:
            issued_name = parse_topic(topic)[1]
        except EventBusError:
            issued_name = None
        if issued_name != name:
            raise EventBusError("invalid_response", "bus/declare did not return the declared topic")
        self._declared[topic] = MappingProxyType(schema)
        return topic

    def publish(self, topic: str, payload: Any) -> Any:
        """Publish on a topic this participant declared; the payload is checked before sending."""
        self._send_check("bus/publish")
        fields = self._declared.get(topic) if isinstance(topic, str) else None
        if fields is None:
            raise EventBusError("not_owner", "publish only on a topic this extension declared")
        checked = validate_payload(fields, payload)
        return self._send("bus/publish", {"topic": topic, "payload": dict(checked)})

    def _send_check(self, method: str) -> None:
        """Fail closed before any local work when the host did not select ``method``."""
        if self._request is None or method not in self._methods:
            raise EventBusError("unsupported_method", f"{method} is not selected by the host")

    def _send(self, method: str, params: Mapping[str, Any]) -> Any:
        self._send_check(method)
        assert self._request is not None     # for type checkers; _send_check refused None
        return self._request(method, params)
