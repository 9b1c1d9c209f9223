import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  validatePresentationSnapshot,
  validatePresentationUpdate,
  PRESENTATION_STATES,
} from "../../src/api/validate-presentation.js";
import {
  MAX_PRESENTATION_ACTIONS,
  MAX_PRESENTATION_ACTIVITIES,
  MAX_PRESENTATION_BYTES,
  MAX_PRESENTATION_DETAIL_BYTES,
  MAX_PRESENTATION_LABEL_BYTES,
  MAX_PRESENTATION_NODES,
  MAX_PRESENTATION_REFERENCES,
  MAX_PRESENTATION_TREE_LEVELS,
} from "../../src/bounds.js";
import { accepted, bytes, refused } from "../helpers/checked.js";

const CTX = { declaredCommands: ["workers"] };

/** The snapshot of the reference's example (W 2.5). */
function specParams(): Record<string, unknown> {
  return {
    parent_request_id: 2,
    snapshot: {
      revision: 4,
      status: { state: "active", label: "1 worker" },
      activities: [
        {
          id: "worker:1",
          kind: "delegation",
          state: "running",
          summary: "Reviewing tests",
          provenance: "local child",
          started_at_ms: 1721000000000,
          metrics: {
            tool_calls: 4,
            input_tokens: 12000,
            cache_read_tokens: 800,
            cache_write_tokens: 0,
            output_tokens: 220,
            reasoning_tokens: 60,
            cost_microdollars: 7200,
          },
          references: [],
        },
      ],
      collection: {
        kind: "tree",
        title: "Workers",
        nodes: [
          {
            id: "worker:1",
            parent_id: null,
            state: "running",
            label: "test-review",
            secondary: "running",
            action_ids: ["stop"],
            references: [],
          },
        ],
        selected_node_id: "worker:1",
        detail: {
          node_id: "worker:1",
          title: "test-review",
          body: "Running in a bounded child session.",
          references: [],
        },
      },
      actions: [
        { id: "stop", label: "Stop worker", command: "workers", arguments: ["stop", "worker:1"], destructive: true },
      ],
    },
  };
}

function snap(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { revision: 1, ...extra };
}

function check(snapshot: unknown, owner: Record<string, unknown> = { parent_request_id: 7 }) {
  return validatePresentationUpdate({ ...owner, snapshot }, CTX);
}

function node(id: string, parent?: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return parent === undefined
    ? { id, label: `L ${id}`, ...extra }
    : { id, parent_id: parent, label: `L ${id}`, ...extra };
}

function tree(nodes: unknown[], kind = "tree"): Record<string, unknown> {
  return snap({ collection: { kind, nodes } });
}

function chain(levels: number): Record<string, unknown>[] {
  return Array.from({ length: levels }, (_, i) => node(`n${i}`, i === 0 ? undefined : `n${i - 1}`));
}

const OWNER = { session_id: "s-1", extension_instance_id: "i-1", process_generation: 3 };

test(
  "PRES-01, PRES-02: the reference's example is accepted as sent (null parent_id dropped) and scoped to " +
    "its request",
  () => {
    const r = accepted(validatePresentationUpdate(specParams(), CTX));
    assert.equal(r.scope, "request");
    assert.equal(r.params.parent_request_id, 2);
    const expected = specParams()["snapshot"] as { collection: { nodes: Record<string, unknown>[] } };
    delete expected.collection.nodes[0]!["parent_id"];
    assert.deepEqual(r.params.snapshot, expected);
  },
);

test("PRES-01: params must be an object with a snapshot; unknown param members are refused", () => {
  refused(validatePresentationUpdate(null, CTX), "expected an object");
  refused(validatePresentationUpdate({ parent_request_id: 1 }, CTX), "snapshot", "missing");
  refused(
    validatePresentationUpdate({ snapshot: snap(), session_name: "mine" }, CTX),
    "session_name",
    "unknown member",
  );
});

test("PRES-03: a resource_owner update is background-scoped and the triple must be complete and well-typed", () => {
  const r = accepted(validatePresentationUpdate({ resource_owner: OWNER, snapshot: snap() }, CTX));
  assert.equal(r.scope, "owner");
  assert.deepEqual(r.params.resource_owner, OWNER);
  refused(
    validatePresentationUpdate(
      { resource_owner: { session_id: "s", extension_instance_id: "i" }, snapshot: snap() },
      CTX,
    ),
    "resource_owner.process_generation",
    "missing",
  );
  refused(
    validatePresentationUpdate({ resource_owner: { ...OWNER, process_generation: 0 }, snapshot: snap() }, CTX),
    "process_generation",
    "below the minimum 1",
  );
  refused(
    validatePresentationUpdate({ resource_owner: { ...OWNER, extra: 1 }, snapshot: snap() }, CTX),
    "resource_owner.extra",
    "unknown member",
  );
});

test("PRES-04: parent_request_id and resource_owner together are refused", () => {
  refused(
    validatePresentationUpdate({ parent_request_id: 2, resource_owner: OWNER, snapshot: snap() }, CTX),
    "mutually exclusive",
  );
});

test("PRES-05: process-scoped state (neither owner member) may not carry a session reference; owned state may", () => {
  const withSession = snap({
    activities: [{ id: "a", kind: "k", state: "running", references: [{ kind: "session", id: "agent-session:1" }] }],
  });
  assert.equal(accepted(validatePresentationUpdate({ snapshot: snap() }, CTX)).scope, "process");
  refused(
    validatePresentationUpdate({ snapshot: withSession }, CTX),
    "activities[0].references[0].kind",
    "process-scoped",
  );
  accepted(check(withSession));
  accepted(check(withSession, { resource_owner: OWNER }));
  // In a detail too.
  const inDetail = snap({
    collection: {
      kind: "list",
      nodes: [node("a")],
      selected_node_id: "a",
      detail: { node_id: "a", references: [{ kind: "session", id: "x" }] },
    },
  });
  refused(validatePresentationUpdate({ snapshot: inDetail }, CTX), "detail.references[0].kind", "process-scoped");
});

test("PRES-07, PRES-18: revision is an integer from 0 to 2^53-1", () => {
  accepted(check(snap({ revision: 0 })));
  accepted(check(snap({ revision: Number.MAX_SAFE_INTEGER })));
  refused(check(snap({ revision: Number.MAX_SAFE_INTEGER + 2 })), "revision", "above 2^53-1");
  refused(check(snap({ revision: -1 })), "revision", "-1 is below the minimum 0");
  refused(check(snap({ revision: 1.5 })), "revision", "expected an integer, got 1.5");
  refused(check({}), "revision", "missing");
});

test("PRES-08: status and collection are optional; activities and actions default to []", () => {
  const r = accepted(check(snap()));
  assert.deepEqual(r.params.snapshot, { revision: 1, activities: [], actions: [] });
  const n = accepted(check(snap({ activities: null, actions: null, status: null, collection: null })));
  assert.deepEqual(n.params.snapshot, { revision: 1, activities: [], actions: [] });
  refused(check(snap({ activities: {} })), "activities", "expected an array");
});

test("PRES-09: a list node cannot have a parent; a tree cannot have a missing parent or a cycle", () => {
  accepted(check(tree([node("a"), node("b")], "list")));
  refused(check(tree([node("a"), node("b", "a")], "list")), "nodes[1].parent_id", "a list node has no parent");
  accepted(check(tree([node("a"), node("b", "a"), node("c", "a")])));
  refused(check(tree([node("a"), node("b", "zz")])), "nodes[1].parent_id", '"zz" is not the id of a node');
  refused(check(tree([node("a", "b"), node("b", "a")])), "part of a parent cycle");
  refused(check(tree([node("a", "a")])), "part of a parent cycle");
  refused(check(tree([node("r"), node("a", "c"), node("b", "a"), node("c", "b")])), "part of a parent cycle");
  refused(
    check(snap({ collection: { kind: "grid", nodes: [] } })),
    "collection.kind",
    '"grid" is not one of "list", "tree"',
  );
  refused(check(tree([node("a"), node("a")])), "duplicate node ids", '"a"');
});

test("PRES-09, PRES-17: a tree of exactly 16 levels is accepted and 17 refused, naming the level and the limit", () => {
  accepted(check(tree(chain(MAX_PRESENTATION_TREE_LEVELS))));
  refused(
    check(tree(chain(MAX_PRESENTATION_TREE_LEVELS + 1))),
    `level ${MAX_PRESENTATION_TREE_LEVELS + 1}`,
    `${MAX_PRESENTATION_TREE_LEVELS}-level tree limit`,
  );
  // Order does not matter: children before parents.
  accepted(check(tree(chain(MAX_PRESENTATION_TREE_LEVELS).reverse())));
  refused(check(tree(chain(MAX_PRESENTATION_TREE_LEVELS + 1).reverse())), "at level 17", "16-level tree limit");
});

test("PRES-09: property: any forest built from earlier parents is accepted up to 16 levels, refused past it", () => {
  fc.assert(
    fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 60 }), fc.boolean(), (picks, reverse) => {
      const nodes: Record<string, unknown>[] = [];
      const depth: number[] = [];
      picks.forEach((pick, i) => {
        // pick 0 makes a root; otherwise the parent is one of the nodes before it.
        const parent = i === 0 || pick % (i + 1) === 0 ? undefined : pick % i;
        depth.push(parent === undefined ? 1 : (depth[parent] ?? 0) + 1);
        nodes.push(node(`n${i}`, parent === undefined ? undefined : `n${parent}`));
      });
      const r = check(tree(reverse ? [...nodes].reverse() : nodes));
      assert.equal(r.ok, Math.max(...depth) <= MAX_PRESENTATION_TREE_LEVELS);
    }),
  );
});

test("PRES-09: property: adding a back edge that closes a loop always refuses the tree", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 15 }), fc.nat(), (len, at) => {
      const nodes = chain(len);
      // The root's parent becomes one of its descendants (or itself): a cycle.
      nodes[0] = node("n0", `n${at % len}`);
      refused(check(tree(nodes)), "cycle");
    }),
  );
});

test("PRES-10: detail.node_id must equal selected_node_id, which must name a node", () => {
  const c = (extra: Record<string, unknown>) =>
    snap({ collection: { kind: "list", nodes: [node("a"), node("b")], ...extra } });
  accepted(check(c({ selected_node_id: "a", detail: { node_id: "a", body: "x" } })));
  accepted(check(c({ selected_node_id: "a" })));
  refused(
    check(c({ selected_node_id: "a", detail: { node_id: "b" } })),
    "detail.node_id",
    '"b" does not match selected_node_id "a"',
  );
  refused(check(c({ detail: { node_id: "a" } })), "detail.node_id", "(absent)");
  refused(check(c({ selected_node_id: "zz" })), "selected_node_id", "not the id of a node");
});

test("PRES-11: each metric is an integer in [0, 2^53-1] and reasoning_tokens <= output_tokens", () => {
  const m = (metrics: Record<string, unknown>) =>
    snap({ activities: [{ id: "a", kind: "k", state: "running", metrics }] });
  accepted(check(m({ output_tokens: 10, reasoning_tokens: 10 })));
  accepted(check(m({ cost_microdollars: Number.MAX_SAFE_INTEGER, tool_calls: 0 })));
  refused(
    check(m({ output_tokens: 10, reasoning_tokens: 11 })),
    "reasoning_tokens",
    "11 is more than output_tokens 10",
  );
  refused(check(m({ reasoning_tokens: 1 })), "reasoning_tokens", "absent, read as 0");
  refused(check(m({ input_tokens: -1 })), "metrics.input_tokens", "below the minimum 0");
  refused(check(m({ cache_read_tokens: Number.MAX_SAFE_INTEGER + 2 })), "metrics.cache_read_tokens", "above 2^53-1");
  refused(check(m({ tool_calls: 1.5 })), "metrics.tool_calls", "expected an integer");
  refused(check(m({ latency_ms: 4 })), "metrics.latency_ms", "unknown member");
});

test(
  "PRES-11: property: metrics are accepted exactly when every counter is a safe non-negative integer and " +
    "reasoning <= output",
  () => {
    const counter = fc.oneof(fc.nat({ max: 1000 }), fc.integer({ min: -5, max: -1 }), fc.constant(0.5));
    fc.assert(
      fc.property(counter, counter, counter, (input, output, reasoning) => {
        const r = check(
          snap({
            activities: [
              {
                id: "a",
                kind: "k",
                state: "running",
                metrics: { input_tokens: input, output_tokens: output, reasoning_tokens: reasoning },
              },
            ],
          }),
        );
        const ints = [input, output, reasoning].every((v) => Number.isInteger(v) && v >= 0);
        assert.equal(r.ok, ints && reasoning <= output);
      }),
    );
  },
);

test("PRES-12: the eleven generic states are accepted everywhere a state goes; anything else is refused", () => {
  assert.equal(PRESENTATION_STATES.length, 11);
  for (const state of PRESENTATION_STATES) {
    accepted(
      check(
        snap({
          status: { state },
          activities: [{ id: "a", kind: "k", state }],
          collection: { kind: "list", nodes: [node("n", undefined, { state })] },
        }),
      ),
    );
  }
  refused(check(snap({ status: { state: "busy" } })), "status.state", '"busy" is not one of');
  refused(check(snap({ activities: [{ id: "a", kind: "k", state: "Running" }] })), "activities[0].state", '"Running"');
  refused(check(tree([node("n", undefined, { state: "done" })])), "nodes[0].state", '"done"');
});

test(
  "PRES-13: references are {kind, id, label?} with kind session, artifact, resource or url; opaque ids " +
    "kept verbatim",
  () => {
    const refs = [
      { kind: "session", id: "agent-session:abc/def?x" },
      { kind: "artifact", id: "artifact:1", label: "log" },
      { kind: "resource", id: "res://anything at all" },
      { kind: "url", id: "https://example.com/a?b=c#d" },
    ];
    const r = accepted(check(snap({ activities: [{ id: "a", kind: "k", state: "running", references: refs }] })));
    assert.deepEqual(r.params.snapshot.activities[0]?.references, refs);
    refused(
      check(
        snap({
          activities: [{ id: "a", kind: "k", state: "running", references: [{ kind: "file", id: "/etc/passwd" }] }],
        }),
      ),
      "references[0].kind",
      '"file"',
    );
    refused(
      check(
        snap({
          activities: [
            {
              id: "a",
              kind: "k",
              state: "running",
              references: [{ kind: "url", id: "https://example.com", open: true }],
            },
          ],
        }),
      ),
      "references[0].open",
      "unknown member",
    );
  },
);

test("PRES-14: url references must be safe http(s) URLs; the refusal names the URL", () => {
  const ref = (id: string) =>
    snap({ activities: [{ id: "a", kind: "k", state: "running", references: [{ kind: "url", id }] }] });
  accepted(check(ref("http://example.com")));
  refused(check(ref("javascript:alert(1)")), '"javascript:alert(1)"', "not an absolute http");
  refused(check(ref("https://user:pw@example.com/")), "credentials");
  refused(check(ref("http://localhost:8080/")), "localhost");
  refused(check(ref("http://10.1.2.3/")), "private address 10.1.2.3");
  refused(check(ref("http://[::1]/")), "loopback");
});

test("PRES-15: every action must route to a command this manifest declares", () => {
  const a = (command: string) => snap({ actions: [{ id: "x", label: "X", command, arguments: [] }] });
  accepted(check(a("workers")));
  refused(
    check(a("rm-rf")),
    "actions[0].command",
    '"rm-rf" is not a command this manifest declares (declared: "workers")',
  );
  refused(validatePresentationUpdate({ snapshot: a("workers") }, { declaredCommands: [] }), "declared: none");
  // A node may only name actions of the snapshot.
  refused(
    check(snap({ collection: { kind: "list", nodes: [node("n", undefined, { action_ids: ["stop"] })] } })),
    "action_ids[0]",
    '"stop" is not the id of an action',
  );
  refused(
    check(
      snap({
        actions: [
          { id: "x", label: "X", command: "workers" },
          { id: "x", label: "Y", command: "workers" },
        ],
      }),
    ),
    "duplicate action ids",
    '"x"',
  );
  const r = accepted(check(snap({ actions: [{ id: "x", label: "X", command: "workers" }] })));
  assert.deepEqual(r.params.snapshot.actions[0], {
    id: "x",
    label: "X",
    command: "workers",
    arguments: [],
    destructive: false,
  });
});

test("PRES-16: control characters and ANSI sequences in labels are refused; the body keeps LF and TAB only", () => {
  const label = (l: string) => snap({ status: { state: "active", label: l } });
  refused(check(label("\u001b[31mred")), "status.label", "U+001B at index 0");
  refused(check(label("two\nlines")), "status.label", "U+000A", "one line of plain text");
  refused(check(label("a\u009bb")), "U+009B");
  refused(check(label("abc\u202Egpj.exe")), "bidirectional control character U+202E");
  // HTML is data: accepted and carried literally, never interpreted.
  assert.equal(
    accepted(check(label("<script>alert(1)</script>"))).params.snapshot.status?.label,
    "<script>alert(1)</script>",
  );
  const body = (b: string) =>
    snap({
      collection: { kind: "list", nodes: [node("a")], selected_node_id: "a", detail: { node_id: "a", body: b } },
    });
  accepted(check(body("line 1\n\tline 2")));
  refused(check(body("over\rwrite")), "detail.body", "U+000D", "only LF and TAB");
  refused(check(body("\u001b]0;title\u0007")), "detail.body", "U+001B");
});

test("PRES-16: frontend layout coordinates, styles and other unknown members are refused at every level", () => {
  refused(check(snap({ layout: { x: 1 } })), "snapshot.layout", "unknown member");
  refused(check(snap({ status: { state: "active", color: "red" } })), "status.color", "unknown member");
  refused(
    check(snap({ activities: [{ id: "a", kind: "k", state: "running", x: 3, y: 4 }] })),
    "activities[0].x",
    "unknown member",
  );
  refused(check(tree([node("a", undefined, { row: 2 })])), "nodes[0].row", "unknown member");
  refused(check(snap({ collection: { kind: "list", nodes: [], css: "a{}" } })), "collection.css", "unknown member");
  refused(
    check(snap({ actions: [{ id: "x", label: "X", command: "workers", html: "<b>" }] })),
    "actions[0].html",
    "unknown member",
  );
});

test("PRES-16: property: any label with a C0, DEL or C1 character is refused; any printable label is accepted", () => {
  const control = fc
    .integer({ min: 0, max: 0x9f })
    .filter((c) => c < 0x20 || c >= 0x7f)
    .map((c) => String.fromCharCode(c));
  fc.assert(
    fc.property(fc.string({ maxLength: 20 }), control, fc.string({ maxLength: 20 }), (a, c, b) => {
      refused(check(snap({ status: { state: "active", label: `${a}${c}${b}` } })), "status.label", "control character");
    }),
  );
  const printable = fc
    .string({ minLength: 1, maxLength: 40, unit: fc.constantFrom(..."abc XYZ<>&\"'{}é日😀".split("")) })
    .filter((s) => s.trim() !== "");
  fc.assert(
    fc.property(printable, (l) => {
      assert.equal(accepted(check(snap({ status: { state: "active", label: l } }))).params.snapshot.status?.label, l);
    }),
  );
});

test("PRES-17: 128 activities accepted, 129 refused naming the count and the limit", () => {
  const acts = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `a${i}`, kind: "k", state: "running" }));
  accepted(check(snap({ activities: acts(MAX_PRESENTATION_ACTIVITIES) })));
  refused(
    check(snap({ activities: acts(MAX_PRESENTATION_ACTIVITIES + 1) })),
    "activities",
    "129 activities, over the 128-activity limit",
  );
  refused(
    check(
      snap({
        activities: [
          { id: "a", kind: "k", state: "running" },
          { id: "a", kind: "k", state: "running" },
        ],
      }),
    ),
    "duplicate activity ids",
  );
});

test("PRES-17: 256 nodes accepted, 257 refused", () => {
  const nodes = (n: number) => Array.from({ length: n }, (_, i) => node(`n${i}`));
  accepted(check(tree(nodes(MAX_PRESENTATION_NODES), "list")));
  refused(
    check(tree(nodes(MAX_PRESENTATION_NODES + 1), "list")),
    "collection.nodes",
    "257 nodes, over the 256-node limit",
  );
});

test("PRES-17: 64 actions accepted, 65 refused", () => {
  const actions = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `x${i}`, label: "X", command: "workers" }));
  accepted(check(snap({ actions: actions(MAX_PRESENTATION_ACTIONS) })));
  refused(
    check(snap({ actions: actions(MAX_PRESENTATION_ACTIONS + 1) })),
    "actions",
    "65 actions, over the 64-action limit",
  );
});

test("PRES-17: 8 references per activity, node and detail accepted, 9 refused", () => {
  const refs = (n: number) => Array.from({ length: n }, (_, i) => ({ kind: "artifact", id: `r${i}` }));
  for (const n of [MAX_PRESENTATION_REFERENCES, MAX_PRESENTATION_REFERENCES + 1]) {
    const a = check(snap({ activities: [{ id: "a", kind: "k", state: "running", references: refs(n) }] }));
    const b = check(tree([node("a", undefined, { references: refs(n) })], "list"));
    const c = check(
      snap({
        collection: {
          kind: "list",
          nodes: [node("a")],
          selected_node_id: "a",
          detail: { node_id: "a", references: refs(n) },
        },
      }),
    );
    if (n === MAX_PRESENTATION_REFERENCES) [a, b, c].forEach((r) => accepted(r));
    else {
      refused(a, "activities[0].references", "9 references, over the 8-reference limit");
      refused(b, "nodes[0].references", "9 references, over the 8-reference limit");
      refused(c, "detail.references", "9 references, over the 8-reference limit");
    }
  }
});

test("PRES-17: a snapshot of exactly 256 KiB encoded is accepted and one byte more refused", () => {
  // List nodes with 1,000-byte secondaries, then one node whose secondary makes the total exact.
  const nodes: Record<string, unknown>[] = [];
  const s = snap({ collection: { kind: "list", nodes } });
  const size = () => JSON.stringify(s).length;
  while (size() < MAX_PRESENTATION_BYTES - 1_500)
    nodes.push(node(`n${nodes.length}`, undefined, { secondary: bytes(1_000) }));
  const last = node("last", undefined, { secondary: "" });
  nodes.push(last);
  // What is left (under 1,500 bytes) goes into the last node's secondary and label, each under 1 KiB.
  const left = MAX_PRESENTATION_BYTES - size();
  last["secondary"] = bytes(Math.min(left, 1_000));
  last["label"] = `${last["label"] as string}${bytes(MAX_PRESENTATION_BYTES - size())}`;
  assert.equal(size(), MAX_PRESENTATION_BYTES);
  assert.ok(nodes.length <= MAX_PRESENTATION_NODES);
  accepted(check(s));
  last["label"] = `${last["label"] as string}x`;
  assert.equal(size(), MAX_PRESENTATION_BYTES + 1);
  refused(check(s), "snapshot", "262145 bytes", "262144-byte limit");
});

test("PRES-18: compact labels and ids of 1,024 bytes are accepted and 1,025 refused, wherever they are", () => {
  const at = bytes(MAX_PRESENTATION_LABEL_BYTES);
  const over = bytes(MAX_PRESENTATION_LABEL_BYTES + 1);
  const cases: Array<[(s: string) => Record<string, unknown>, string]> = [
    [(s) => snap({ status: { state: "active", label: s } }), "status.label"],
    [(s) => snap({ activities: [{ id: s, kind: "k", state: "running" }] }), "activities[0].id"],
    [(s) => snap({ activities: [{ id: "a", kind: "k", state: "running", summary: s }] }), "activities[0].summary"],
    [(s) => tree([node("a", undefined, { secondary: s })]), "nodes[0].secondary"],
    [
      (s) => snap({ actions: [{ id: "x", label: "X", command: "workers", arguments: [s] }] }),
      "actions[0].arguments[0]",
    ],
    [
      (s) =>
        snap({ activities: [{ id: "a", kind: "k", state: "running", references: [{ kind: "artifact", id: s }] }] }),
      "references[0].id",
    ],
  ];
  for (const [make, path] of cases) {
    accepted(check(make(at)));
    refused(check(make(over)), path, "1025 bytes, over the 1024-byte limit");
  }
  // UTF-8 bytes, not characters: 342 three-byte characters are 1,026 bytes.
  refused(check(snap({ status: { state: "active", label: "€".repeat(342) } })), "1026 bytes");
});

test("PRES-18: a detail body of 64 KiB is accepted and one byte more refused", () => {
  const body = (n: number) =>
    snap({
      collection: { kind: "list", nodes: [node("a")], selected_node_id: "a", detail: { node_id: "a", body: bytes(n) } },
    });
  accepted(check(body(MAX_PRESENTATION_DETAIL_BYTES)));
  refused(check(body(MAX_PRESENTATION_DETAIL_BYTES + 1)), "detail.body", "65537 bytes, over the 65536-byte limit");
});

test("PRES-18: timestamps are integers up to 2^53-1", () => {
  const a = (started: unknown) =>
    snap({ activities: [{ id: "a", kind: "k", state: "running", started_at_ms: started, finished_at_ms: 5 }] });
  accepted(check(a(Number.MAX_SAFE_INTEGER)));
  refused(check(a(Number.MAX_SAFE_INTEGER + 2)), "started_at_ms", "above 2^53-1");
  refused(check(a("yesterday")), "started_at_ms", "expected an integer");
});

test("PRES-21: property: a valid snapshot with any one member corrupted is refused whole", () => {
  const corruptions: Array<(s: Record<string, any>) => void> = [
    (s) => {
      s.status.state = "busy";
    },
    (s) => {
      s.activities[0].metrics.reasoning_tokens = 10_000;
    },
    (s) => {
      s.collection.nodes[0].parent_id = "ghost";
    },
    (s) => {
      s.collection.detail.node_id = "other";
    },
    (s) => {
      s.actions[0].command = "undeclared";
    },
    (s) => {
      s.activities[0].references.push({ kind: "url", id: "file:///etc/passwd" });
    },
    (s) => {
      s.collection.nodes[0].label = "\u001b[2J";
    },
    (s) => {
      s.revision = -3;
    },
  ];
  fc.assert(
    fc.property(fc.integer({ min: 0, max: corruptions.length - 1 }), (i) => {
      const params = specParams();
      corruptions[i]!(params["snapshot"] as Record<string, any>);
      const r = validatePresentationUpdate(params, CTX);
      assert.equal(r.ok, false);
    }),
  );
});

test("PRES-21: validatePresentationSnapshot checks one snapshot as the SDK sends it", () => {
  accepted(validatePresentationSnapshot(snap(), CTX));
  refused(
    validatePresentationSnapshot(
      snap({ activities: [{ id: "a", kind: "k", state: "running", references: [{ kind: "session", id: "s" }] }] }),
      CTX,
      "process",
    ),
    "process-scoped",
  );
});
