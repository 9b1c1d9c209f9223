import { test } from "node:test";
import assert from "node:assert/strict";
import { bounds, type ResourceOwner } from "@octet/protocol";
import {
  presentationService,
  type PresentationClock,
  type PresentationRecord,
} from "../../src/modules/presentation/presentation-service.js";
import { PresentationStore } from "../../src/modules/presentation/presentation-store.js";
import type { GenerationService, ServiceGeneration } from "../../src/modules/module.js";
import type { HostEvent } from "../../src/events.js";
import type { ExtensionManifest } from "../../src/manifest/manifest.js";

/** A clock the test advances; timers fire when their time is reached. */
class FakeClock implements PresentationClock {
  t = 1_000_000;
  #timers: { at: number; fn: () => void; id: number }[] = [];
  #next = 0;
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.#next;
    this.#timers.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers = this.#timers.filter((t) => t.id !== handle);
  }
  get pending(): number {
    return this.#timers.length;
  }
  advance(ms: number): void {
    this.t += ms;
    for (;;) {
      const due = this.#timers.filter((t) => t.at <= this.t).sort((a, b) => a.at - b.at)[0];
      if (!due) return;
      this.#timers = this.#timers.filter((t) => t !== due);
      due.fn();
    }
  }
}

const OWNER: ResourceOwner = { session_id: "s-1", extension_instance_id: "inst-1", process_generation: 3 };

interface Harness {
  service: GenerationService;
  clock: FakeClock;
  events: HostEvent[];
  diagnostics: string[];
  active: Set<number>;
  send(params: unknown): void;
  shown(): PresentationRecord[];
}

function harness(options: { presentation?: boolean; commands?: string[] } = {}): Harness {
  const clock = new FakeClock();
  const events: HostEvent[] = [];
  const diagnostics: string[] = [];
  const active = new Set<number>();
  const manifest = {
    name: "workers",
    version: "1.2.3",
    api_version: "0.2",
    contributes: { presentation: options.presentation ?? true, commands: options.commands ?? ["workers"] },
  } as unknown as ExtensionManifest;
  const g: ServiceGeneration = {
    name: "workers",
    api: "0.2",
    number: 3,
    manifest,
    scratchDir: () => null,
    // Presentation never touches the tool catalog.
    catalog: { tools: () => [], publish: () => assert.fail("presentation must not publish tools"), features: () => [] },
    owner: () => ({ ...OWNER }),
    ended: new AbortController().signal,
    activeRequest: (id) =>
      active.has(id)
        ? { method: "tool/call", signal: new AbortController().signal, takeApproval: () => false }
        : undefined,
    diagnose: (_level, message) => diagnostics.push(message),
    emit: (event) => events.push(event),
  };
  const service = presentationService({ clock })(g);
  assert.ok(service);
  return {
    service,
    clock,
    events,
    diagnostics,
    active,
    send: (params) => service.notifications?.["presentation/update"]?.(params),
    shown: () => events.flatMap((e) => (e.type === "presentation" && e.presentation ? [e.presentation] : [])),
  };
}

const snap = (revision: number, extra: Record<string, unknown> = {}) => ({ revision, ...extra });

test(
  "PRES-01: the service offers no feature string; a manifest without contributes.presentation has its " +
    "snapshots dropped with a diagnostic",
  () => {
    const h = harness({ presentation: false });
    assert.deepEqual(h.service.features, []);
    h.send({ snapshot: snap(1) });
    assert.equal(h.shown().length, 0);
    assert.match(h.diagnostics[0] ?? "", /does not declare contributes\.presentation = true/);
  },
);

test(
  "PRES-02, PRES-22: a parent-correlated snapshot gets the host-derived owner, manifest identity, fence " +
    "and generation",
  () => {
    const h = harness();
    h.active.add(7);
    h.send({ parent_request_id: 7, snapshot: snap(0, { status: { state: "active", label: "1 worker" } }) });
    const [r] = h.shown();
    assert.ok(r);
    assert.deepEqual(r.owner, OWNER);
    assert.equal(r.scope, "request");
    assert.equal(r.extension, "workers");
    assert.equal(r.version, "1.2.3");
    assert.equal(r.generation, 3);
    assert.match(r.instance, /^[0-9a-f-]{36}$/);
    assert.deepEqual(r.snapshot.status, { state: "active", label: "1 worker" });
    // The fence never repeats: another generation's service gets another one.
    const other = harness();
    other.send({ snapshot: snap(0) });
    assert.notEqual(other.shown()[0]?.instance, r.instance);
  },
);

test("PRES-02: a parent_request_id that names no active request drops the snapshot", () => {
  const h = harness();
  h.send({ parent_request_id: 99, snapshot: snap(1) });
  assert.equal(h.shown().length, 0);
  assert.match(h.diagnostics.join("\n"), /parent_request_id 99 is not an active host request/);
});

test(
  "PRES-03, PRES-06: a background snapshot is accepted only with the exact issued triple; stale or foreign " +
    "triples are dropped",
  () => {
    const h = harness();
    h.send({ resource_owner: OWNER, snapshot: snap(1) });
    assert.deepEqual(h.shown()[0]?.owner, OWNER);
    assert.equal(h.shown()[0]?.scope, "owner");
    for (const owner of [
      { ...OWNER, process_generation: 2 },
      { ...OWNER, session_id: "s-other" },
      { ...OWNER, extension_instance_id: "inst-foreign" },
    ])
      h.send({ resource_owner: owner, snapshot: snap(5) });
    assert.equal(h.shown().length, 1);
    assert.equal(
      h.diagnostics.filter((d) => d.includes("is not the triple issued to this process generation")).length,
      3,
    );
  },
);

test("PRES-04: a notification with both parent_request_id and resource_owner is dropped with a diagnostic", () => {
  const h = harness();
  h.active.add(1);
  h.send({ parent_request_id: 1, resource_owner: OWNER, snapshot: snap(1) });
  assert.equal(h.shown().length, 0);
  assert.match(h.diagnostics[0] ?? "", /mutually exclusive/);
});

test("PRES-05: process-scoped state has no owner and may not reference a session", () => {
  const h = harness();
  h.send({ snapshot: snap(1) });
  assert.equal(h.shown()[0]?.owner, null);
  assert.equal(h.shown()[0]?.scope, "process");
  h.send({
    snapshot: snap(2, {
      activities: [{ id: "a", kind: "k", state: "running", references: [{ kind: "session", id: "s" }] }],
    }),
  });
  assert.equal(h.shown().length, 1);
  assert.match(h.diagnostics.join("\n"), /process-scoped/);
});

test("PRES-07: revisions must increase within a generation (0 is valid); a stale one is ignored and diagnosed", () => {
  const h = harness();
  h.send({ snapshot: snap(0) });
  h.send({ snapshot: snap(5) });
  h.send({ snapshot: snap(5) });
  h.send({ snapshot: snap(3) });
  h.send({ snapshot: snap(6) });
  assert.deepEqual(
    h.shown().map((r) => r.revision),
    [0, 5, 6],
  );
  assert.equal(h.diagnostics.filter((d) => d.includes("stale")).length, 2);
  assert.match(h.diagnostics[0] ?? "", /revision 5 is not newer than revision 5/);
});

test(
  "PRES-21: an invalid snapshot is refused whole, the last accepted one stays, and the revision is " + "not consumed",
  () => {
    const h = harness();
    h.send({ snapshot: snap(1, { status: { state: "active" } }) });
    h.send({
      snapshot: snap(2, { status: { state: "active" }, actions: [{ id: "x", label: "X", command: "undeclared" }] }),
    });
    assert.equal(h.shown().length, 1);
    assert.match(
      h.diagnostics[0] ?? "",
      /the last accepted snapshot stays: .*"undeclared" is not a command this manifest declares/,
    );
    // The refused revision 2 does not block a valid revision 2.
    h.send({ snapshot: snap(2) });
    assert.deepEqual(
      h.shown().map((r) => r.revision),
      [1, 2],
    );
  },
);

test(
  "PRES-15, PRES-23: actions are checked against the manifest's declared commands and never run by " + "the service",
  () => {
    const h = harness({ commands: ["workers", "other"] });
    h.send({
      snapshot: snap(1, {
        actions: [{ id: "stop", label: "Stop", command: "other", arguments: ["x"], destructive: true }],
      }),
    });
    assert.deepEqual(h.shown()[0]?.snapshot.actions, [
      { id: "stop", label: "Stop", command: "other", arguments: ["x"], destructive: true },
    ]);
    // The service has no requests of its own and emits only presentation events.
    assert.equal(h.service.requests, undefined);
    assert.ok(h.events.every((e) => e.type === "presentation"));
  },
);

test(
  "PRES-19: 32 snapshots pass in a window; the excess is coalesced last-wins and the newest is emitted " +
    "when the next window opens",
  () => {
    const h = harness();
    const max = bounds.MAX_PRESENTATIONS_PER_SECOND;
    for (let i = 1; i <= max; i++) h.send({ snapshot: snap(i) });
    assert.equal(h.shown().length, max);
    h.clock.advance(400);
    for (let i = max + 1; i <= max + 10; i++) h.send({ snapshot: snap(i) });
    // Held back, not dropped: nothing more now.
    assert.equal(h.shown().length, max);
    h.clock.advance(599);
    assert.equal(h.shown().length, max);
    h.clock.advance(1);
    // The window opened at +1000 ms: exactly one more, the newest of the ten.
    assert.equal(h.shown().length, max + 1);
    assert.equal(h.shown().at(-1)?.revision, max + 10);
    // The coalesced one counts in the new window: 31 more pass at once, the 32nd waits.
    for (let i = max + 11; i <= max + 42; i++) h.send({ snapshot: snap(i) });
    assert.equal(h.shown().length, 2 * max);
    h.clock.advance(1_000);
    assert.equal(h.shown().at(-1)?.revision, max + 42);
    assert.equal(h.clock.pending, 0);
  },
);

test("PRES-19: the newest pending snapshot is emitted when a late timer is overtaken by a new arrival", () => {
  const h = harness();
  const max = bounds.MAX_PRESENTATIONS_PER_SECOND;
  for (let i = 1; i <= max + 2; i++) h.send({ snapshot: snap(i) });
  // The clock jumps past the window without the timer having run (a busy event loop).
  h.clock.t += 5_000;
  h.send({ snapshot: snap(100) });
  assert.deepEqual(
    h
      .shown()
      .slice(max)
      .map((r) => r.revision),
    [max + 2, 100],
  );
  assert.equal(h.clock.pending, 0);
});

test("PRES-20: throttling produces at most one diagnostic per window", () => {
  const h = harness();
  const max = bounds.MAX_PRESENTATIONS_PER_SECOND;
  let revision = 0;
  for (let window = 0; window < 3; window++) {
    for (let i = 0; i < max * 3; i++) h.send({ snapshot: snap(++revision) });
    h.clock.advance(1_000);
  }
  const throttled = h.diagnostics.filter((d) => d.includes(`over ${max} snapshots per second`));
  assert.equal(throttled.length, 3);
  assert.equal(h.diagnostics.length, 3);
});

test("PRES-25, SUP-19: when the generation ends a pending snapshot is dropped and the shown state is cleared", () => {
  const h = harness();
  const max = bounds.MAX_PRESENTATIONS_PER_SECOND;
  for (let i = 1; i <= max + 1; i++) h.send({ snapshot: snap(i) });
  h.service.dispose?.();
  assert.equal(h.clock.pending, 0);
  const last = h.events.at(-1);
  assert.equal(last?.type, "presentation");
  assert.equal(last?.type === "presentation" ? last.presentation : "x", null);
  h.clock.advance(2_000);
  h.send({ snapshot: snap(999) });
  assert.equal(h.shown().length, max);
});

test(
  "PRES-22, PRES-25: the store keeps the latest per owner, prefers the newest revision, and forgets an " +
    "ended generation",
  () => {
    const store = new PresentationStore();
    const rec = (generation: number, revision: number, owner: ResourceOwner | null): PresentationRecord => ({
      extension: "w",
      version: "1",
      instance: `i${generation}`,
      generation,
      owner,
      scope: owner ? "owner" : "process",
      revision,
      snapshot: { revision, activities: [], actions: [] },
    });
    const put = (r: PresentationRecord) =>
      store.observe({ type: "presentation", extension: "w", generation: r.generation, presentation: r });
    put(rec(1, 1, null));
    put(rec(1, 2, OWNER));
    put(rec(1, 3, null));
    assert.equal(store.latest("w")?.revision, 3);
    assert.deepEqual(
      store.all("w").map((r) => r.revision),
      [3, 2],
    );
    // A reload candidate (generation 2) publishes: generation 1's snapshots are replaced at once.
    put(rec(2, 0, null));
    assert.deepEqual(
      store.all("w").map((r) => [r.generation, r.revision]),
      [[2, 0]],
    );
    // Generation 1 ending later does not clear generation 2's.
    store.observe({ type: "presentation", extension: "w", generation: 1, presentation: null });
    assert.equal(store.latest("w")?.generation, 2);
    store.observe({ type: "presentation", extension: "w", generation: 2, presentation: null });
    assert.equal(store.latest("w"), null);
  },
);
