"""EventBusKernel, TopicRegistry, BoundedQueue and HostEventBus of octet_extension.event_bus
(PY-53, PY-54)."""
import threading
import unittest
from types import MappingProxyType

import octet_extension.event_bus as bus
from octet_extension.event_bus import (
    DEFAULT_QUEUE_CAPACITY, MAX_QUEUE_CAPACITY, MAX_SUBSCRIPTIONS_PER_SUBSCRIBER,
    MAX_SUBSCRIPTIONS_PER_TOPIC, MAX_TOPICS, MAX_TOPICS_PER_OWNER, BoundedQueue, EventBusError,
    EventBusKernel, HostEventBus, PayloadRejected, TopicRegistry,
)

FIELDS = {"step": "string", "count": "integer"}
TOPIC = "bus.builder.progress"


def payload(n=1):
    return {"step": "compile", "count": n}


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        self.now += 1.0
        return self.now


def code_of(call):
    try:
        call()
    except EventBusError as error:
        return error.code
    raise AssertionError("no EventBusError raised")


class KernelTest(unittest.TestCase):
    def setUp(self):
        self.clock = FakeClock()
        self.kernel = EventBusKernel(clock=self.clock)
        self.kernel.declare("builder", 1, TOPIC, FIELDS)

    def test_PY_53_module_provides_the_named_api(self):
        """PY-53: octet_extension.event_bus provides EventBusKernel, TopicRegistry, BoundedQueue,
        validate_payload and HostEventBus."""
        for name in ("EventBusKernel", "TopicRegistry", "BoundedQueue", "validate_payload", "HostEventBus"):
            self.assertIn(name, bus.__all__)
            self.assertTrue(callable(getattr(bus, name)))
        self.assertTrue(issubclass(PayloadRejected, EventBusError))

    def test_PY_53_publish_delivers_a_host_owned_envelope(self):
        """PY-53: publisher, generation, sequence and time come from the kernel, not the payload."""
        sub = self.kernel.subscribe("watcher", 4, TOPIC)
        first = self.kernel.publish("builder", 1, TOPIC, payload(1))
        second = self.kernel.publish("builder", 1, TOPIC, payload(2))
        self.assertEqual((first.sequence, first.delivered, first.dropped), (1, 1, 0))
        self.assertEqual(second.sequence, 2)
        delivery = self.kernel.receive("watcher", 4, sub)
        self.assertEqual(delivery.dropped, 0)
        self.assertFalse(delivery.closed)
        event = delivery.events[0]
        self.assertEqual((event.topic, event.publisher, event.generation, event.sequence),
                         (TOPIC, "builder", 1, 1))
        self.assertEqual(event.published_at, 1001.0)
        self.assertIsInstance(event.payload, MappingProxyType)
        self.assertEqual([e.payload["count"] for e in delivery.events], [1, 2])

    def test_PY_53_payload_cannot_claim_the_envelope(self):
        """PY-53: a payload carrying publisher/generation/time fields is refused, nothing queued."""
        sub = self.kernel.subscribe("watcher", 1, TOPIC)
        for key in ("publisher", "generation", "published_at", "owner", "session_id"):
            with self.assertRaises(PayloadRejected) as caught:
                self.kernel.publish("builder", 1, TOPIC, dict(payload(), **{key: "builder"}))
            self.assertEqual(caught.exception.rule, "authority_field")
        self.assertEqual(self.kernel.receive("watcher", 1, sub).events, ())

    def test_PY_53_owner_only_publish(self):
        """PY-53: only the topic's owner may publish; the refusal comes before the payload is read."""
        sub = self.kernel.subscribe("watcher", 1, TOPIC)
        self.assertEqual(code_of(lambda: self.kernel.publish("intruder", 1, TOPIC, payload())), "not_owner")
        self.assertEqual(code_of(lambda: self.kernel.publish("intruder", 1, TOPIC, {"junk": 1})), "not_owner")
        self.assertEqual(code_of(lambda: self.kernel.publish("watcher", 1, TOPIC, payload())), "not_owner")
        self.assertEqual(self.kernel.receive("watcher", 1, sub).events, ())

    def test_PY_53_topics_are_declared_only_in_the_owners_namespace(self):
        """PY-53: bus.<owner>.<name> belongs to <owner>: nobody else can declare it."""
        self.assertEqual(code_of(lambda: self.kernel.declare("intruder", 1, "bus.builder.other", FIELDS)),
                         "not_owner")
        self.assertEqual(code_of(lambda: self.kernel.declare("Bad Name", 1, "bus.x.y", FIELDS)),
                         "invalid_participant")
        self.assertEqual(code_of(lambda: self.kernel.declare("x", -1, "bus.x.y", FIELDS)),
                         "invalid_participant")

    def test_PY_53_unknown_topics_fail_closed(self):
        """PY-53: publishing or subscribing to an undeclared topic is refused."""
        self.assertEqual(code_of(lambda: self.kernel.publish("builder", 1, "bus.builder.nope", payload())),
                         "unknown_topic")
        self.assertEqual(code_of(lambda: self.kernel.subscribe("watcher", 1, "bus.builder.nope")),
                         "unknown_topic")
        self.assertEqual(code_of(lambda: self.kernel.subscribe("watcher", 1, "builder.progress")),
                         "invalid_topic")

    def test_PY_53_invalid_payload_is_refused_and_not_queued(self):
        """PY-53: fail-closed validation in publish: nothing reaches any queue."""
        sub = self.kernel.subscribe("watcher", 1, TOPIC)
        with self.assertRaises(PayloadRejected):
            self.kernel.publish("builder", 1, TOPIC, {"step": "x", "count": "1"})
        with self.assertRaises(PayloadRejected):
            self.kernel.publish("builder", 1, TOPIC, {"step": "/home/alice/secret", "count": 1})
        self.assertEqual(self.kernel.receive("watcher", 1, sub).events, ())
        self.assertEqual(self.kernel.publish("builder", 1, TOPIC, payload()).sequence, 1)

    def test_PY_53_redeclaration_rules(self):
        """PY-53: identical redeclaration is idempotent; other fields in the same generation are
        refused; an older generation is stale; a newer one takes over and closes subscriptions."""
        spec = self.kernel.registry.get(TOPIC)
        self.assertIs(self.kernel.declare("builder", 1, TOPIC, dict(FIELDS)), spec)
        self.assertEqual(code_of(lambda: self.kernel.declare("builder", 1, TOPIC, {"step": "string"})),
                         "duplicate_topic")
        self.assertEqual(code_of(lambda: self.kernel.declare("builder", 0, TOPIC, FIELDS)),
                         "stale_generation")
        sub = self.kernel.subscribe("watcher", 1, TOPIC)
        self.kernel.publish("builder", 1, TOPIC, payload())
        self.kernel.declare("builder", 2, TOPIC, {"step": "string"})
        self.assertEqual(code_of(lambda: self.kernel.publish("builder", 1, TOPIC, payload())),
                         "stale_generation")
        receipt = self.kernel.publish("builder", 2, TOPIC, {"step": "link"})
        self.assertEqual((receipt.sequence, receipt.delivered), (1, 0))
        delivery = self.kernel.receive("watcher", 1, sub)
        self.assertEqual((len(delivery.events), delivery.closed), (1, True))
        self.assertEqual(code_of(lambda: self.kernel.receive("watcher", 1, sub)), "unknown_subscription")

    def test_PY_53_retire_ends_a_generation(self):
        """PY-53: a retired generation's topics and subscriptions are gone; queued events are still
        delivered once with closed=True; its ids are not valid in the next generation."""
        watcher = self.kernel.subscribe("watcher", 1, TOPIC)
        own = self.kernel.subscribe("builder", 1, TOPIC)
        self.kernel.publish("builder", 1, TOPIC, payload())
        self.kernel.retire("builder", 1)
        self.assertNotIn(TOPIC, self.kernel.registry)
        self.assertEqual(code_of(lambda: self.kernel.publish("builder", 1, TOPIC, payload())), "unknown_topic")
        self.assertEqual(code_of(lambda: self.kernel.receive("builder", 1, own)), "unknown_subscription")
        self.assertEqual(code_of(lambda: self.kernel.receive("builder", 2, own)), "unknown_subscription")
        last = self.kernel.receive("watcher", 1, watcher)
        self.assertEqual((len(last.events), last.closed), (1, True))
        self.kernel.declare("builder", 2, TOPIC, FIELDS)
        self.assertEqual(self.kernel.publish("builder", 2, TOPIC, payload()).sequence, 1)

    def test_PY_53_subscriptions_are_fenced_by_participant(self):
        """PY-53: a subscription id is usable only by its subscriber and generation, with one error
        for "not yours" and "no such id"."""
        sub = self.kernel.subscribe("watcher", 1, TOPIC)
        errors = set()
        for who, gen, sid in (("other", 1, sub), ("watcher", 2, sub), ("watcher", 1, "sub-999"),
                              ("watcher", 1, None)):
            with self.assertRaises(EventBusError) as caught:
                self.kernel.receive(who, gen, sid)
            errors.add(str(caught.exception))
        self.assertEqual(len(errors), 1)
        self.assertEqual(code_of(lambda: self.kernel.unsubscribe("other", 1, sub)), "unknown_subscription")
        self.kernel.unsubscribe("watcher", 1, sub)
        self.assertEqual(code_of(lambda: self.kernel.receive("watcher", 1, sub)), "unknown_subscription")

    def test_PY_53_overflow_drops_newest_and_reports_it(self):
        """PY-53: bounded queues: a full subscriber loses the newest events, counted and reported
        to it and to the publisher; other subscribers are not held back."""
        slow = self.kernel.subscribe("slow", 1, TOPIC, capacity=2)
        fast = self.kernel.subscribe("fast", 1, TOPIC, capacity=8)
        receipts = [self.kernel.publish("builder", 1, TOPIC, payload(n)) for n in range(1, 5)]
        self.assertEqual([(r.delivered, r.dropped) for r in receipts], [(2, 0), (2, 0), (1, 1), (1, 1)])
        got = self.kernel.receive("slow", 1, slow)
        self.assertEqual(([e.sequence for e in got.events], got.dropped), ([1, 2], 2))
        again = self.kernel.receive("slow", 1, slow)
        self.assertEqual((again.events, again.dropped), ((), 0))
        self.assertEqual([e.sequence for e in self.kernel.receive("fast", 1, fast).events], [1, 2, 3, 4])

    def test_PY_53_receive_is_bounded_by_max_items(self):
        """PY-53: receive returns at most max_items (1..1024) oldest events."""
        sub = self.kernel.subscribe("watcher", 1, TOPIC)
        for n in range(5):
            self.kernel.publish("builder", 1, TOPIC, payload(n))
        self.assertEqual(len(self.kernel.receive("watcher", 1, sub, max_items=2).events), 2)
        self.assertEqual(len(self.kernel.receive("watcher", 1, sub, max_items=MAX_QUEUE_CAPACITY).events), 3)
        for bad in (0, MAX_QUEUE_CAPACITY + 1, True, 1.0):
            self.assertEqual(code_of(lambda: self.kernel.receive("watcher", 1, sub, max_items=bad)),
                             "bounds_exceeded")

    def test_PY_53_concurrent_publishers_get_unique_sequences(self):
        """PY-53: the kernel serializes calls: concurrent publishes lose and duplicate nothing."""
        sub = self.kernel.subscribe("watcher", 1, TOPIC, capacity=MAX_QUEUE_CAPACITY)
        sequences = []
        lock = threading.Lock()

        def worker():
            for n in range(100):
                seq = self.kernel.publish("builder", 1, TOPIC, payload(n)).sequence
                with lock:
                    sequences.append(seq)

        threads = [threading.Thread(target=worker) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
            self.assertFalse(thread.is_alive())
        self.assertEqual(sorted(sequences), list(range(1, 801)))
        events = self.kernel.receive("watcher", 1, sub, max_items=MAX_QUEUE_CAPACITY).events
        self.assertEqual([e.sequence for e in events], list(range(1, 801)))


class BoundsTest(unittest.TestCase):
    def test_PY_53_queue_capacity_at_limit_and_one_past(self):
        """PY-53: queue capacity is 1..1024 (default 64); a full queue refuses and counts."""
        self.assertEqual(BoundedQueue().capacity, DEFAULT_QUEUE_CAPACITY)
        for bad in (0, -1, MAX_QUEUE_CAPACITY + 1, True, 2.0, None):
            self.assertEqual(code_of(lambda: BoundedQueue(bad)), "bounds_exceeded")
        for capacity in (1, MAX_QUEUE_CAPACITY):
            queue = BoundedQueue(capacity)
            self.assertTrue(all(queue.offer(i) for i in range(capacity)))
            self.assertFalse(queue.offer("one past"))
            self.assertEqual((len(queue), queue.dropped), (capacity, 1))
            items, dropped = queue.take(MAX_QUEUE_CAPACITY)
            self.assertEqual((items, dropped), (list(range(capacity)), 1))
            self.assertEqual((len(queue), queue.dropped), (0, 0))

    def test_PY_53_topics_per_owner_at_limit_and_one_past(self):
        """PY-53: an owner declares at most 64 topics."""
        kernel = EventBusKernel()
        for i in range(MAX_TOPICS_PER_OWNER):
            kernel.declare("a", 1, f"bus.a.t{i}", FIELDS)
        self.assertEqual(code_of(lambda: kernel.declare("a", 1, "bus.a.extra", FIELDS)), "bounds_exceeded")
        kernel.declare("b", 1, "bus.b.t0", FIELDS)

    def test_PY_53_topics_per_session_at_limit_and_one_past(self):
        """PY-53: a session's registry holds at most 256 topics."""
        registry = TopicRegistry()
        for i in range(MAX_TOPICS):
            owner = f"o{i // MAX_TOPICS_PER_OWNER}"
            registry.register(f"bus.{owner}.t{i}", owner, 1, FIELDS)
        self.assertEqual(len(registry), MAX_TOPICS)
        self.assertEqual(code_of(lambda: registry.register("bus.z.t", "z", 1, FIELDS)), "bounds_exceeded")
        self.assertEqual(len(registry.retire("o0", 1)), MAX_TOPICS_PER_OWNER)
        registry.register("bus.z.t", "z", 1, FIELDS)

    def test_PY_53_subscriptions_per_topic_at_limit_and_one_past(self):
        """PY-53: a topic has at most 32 live subscriptions."""
        kernel = EventBusKernel()
        kernel.declare("a", 1, "bus.a.t", FIELDS)
        for i in range(MAX_SUBSCRIPTIONS_PER_TOPIC):
            kernel.subscribe(f"s{i}", 1, "bus.a.t")
        self.assertEqual(code_of(lambda: kernel.subscribe("late", 1, "bus.a.t")), "bounds_exceeded")

    def test_PY_53_subscriptions_per_subscriber_at_limit_and_one_past(self):
        """PY-53: a subscriber holds at most 64 subscriptions."""
        kernel = EventBusKernel()
        for t in range(3):
            kernel.declare("a", 1, f"bus.a.t{t}", FIELDS)
        for i in range(MAX_SUBSCRIPTIONS_PER_SUBSCRIBER):
            kernel.subscribe("s", 1, f"bus.a.t{i // MAX_SUBSCRIPTIONS_PER_TOPIC}")
        self.assertEqual(code_of(lambda: kernel.subscribe("s", 1, "bus.a.t2")), "bounds_exceeded")
        kernel.subscribe("other", 1, "bus.a.t2")


class FakeHost:
    """Stands in for the runtime's request function: the host derives identity itself."""

    def __init__(self, kernel, owner="builder", generation=3):
        self.kernel, self.owner, self.generation = kernel, owner, generation
        self.sent = []

    def __call__(self, method, params):
        self.sent.append((method, dict(params)))
        if method == "bus/declare":
            topic = f"bus.{self.owner}.{params['name']}"
            self.kernel.declare(self.owner, self.generation, topic, params["fields"])
            return {"topic": topic}
        receipt = self.kernel.publish(self.owner, self.generation, params["topic"], params["payload"])
        return {"sequence": receipt.sequence}


class HostEventBusTest(unittest.TestCase):
    METHODS = ("bus/declare", "bus/publish")

    def setUp(self):
        self.kernel = EventBusKernel()
        self.host = FakeHost(self.kernel)

    def test_PY_54_declare_sends_bus_declare_without_identity(self):
        """PY-54: HostEventBus.declare sends bus/declare; identity, generation and time are host-owned."""
        participant = HostEventBus(self.host, self.METHODS)
        topic = participant.declare("progress", FIELDS)
        self.assertEqual(topic, TOPIC)
        self.assertEqual(self.host.sent, [("bus/declare", {"name": "progress", "fields": FIELDS})])
        self.assertEqual(self.kernel.registry.get(TOPIC).generation, 3)
        self.assertEqual(participant.publish(topic, payload()), {"sequence": 1})
        method, params = self.host.sent[-1]
        self.assertEqual((method, set(params)), ("bus/publish", {"topic", "payload"}))

    def test_PY_54_missing_or_unselected_method_fails_closed(self):
        """PY-54: a missing or unselected bus method is refused locally; nothing is sent."""
        for request, methods in ((None, self.METHODS), (self.host, ()), (self.host, ("bus/publish",))):
            participant = HostEventBus(request, methods)
            self.assertEqual(code_of(lambda: participant.declare("progress", FIELDS)), "unsupported_method")
        only_declare = HostEventBus(self.host, ("bus/declare",))
        topic = only_declare.declare("progress", FIELDS)
        sent = len(self.host.sent)
        self.assertEqual(code_of(lambda: only_declare.publish(topic, payload())), "unsupported_method")
        self.assertEqual(len(self.host.sent), sent)

    def test_PY_54_declare_is_checked_locally_and_the_answer_verified(self):
        """PY-54: bad names and schemas are refused before sending; a wrong answer fails closed."""
        participant = HostEventBus(self.host, self.METHODS)
        self.assertEqual(code_of(lambda: participant.declare("Bad.Name", FIELDS)), "invalid_topic")
        self.assertEqual(code_of(lambda: participant.declare("x", {"api_key": "string"})), "invalid_schema")
        self.assertEqual(self.host.sent, [])
        for answer in (None, {}, {"topic": "bus.builder.other"}, {"topic": 5}, {"topic": "progress"}):
            liar = HostEventBus(lambda method, params, a=answer: a, self.METHODS)
            self.assertEqual(code_of(lambda: liar.declare("progress", FIELDS)), "invalid_response")

    def test_PY_54_publish_only_declared_topics_with_valid_payloads(self):
        """PY-54: the participant publishes only what it declared, validated before sending."""
        participant = HostEventBus(self.host, self.METHODS)
        topic = participant.declare("progress", FIELDS)
        sent = len(self.host.sent)
        self.assertEqual(code_of(lambda: participant.publish("bus.other.progress", payload())), "not_owner")
        with self.assertRaises(PayloadRejected):
            participant.publish(topic, {"step": "x", "count": 1, "generation": 9})
        with self.assertRaises(PayloadRejected):
            participant.publish(topic, {"step": "alice@example.com", "count": 1})
        self.assertEqual(len(self.host.sent), sent)


if __name__ == "__main__":
    unittest.main()
