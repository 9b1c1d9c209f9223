/**
 * $/progress through a real child process: the event shapes, the strictly increasing sequence per
 * request, nothing after the response, silence without request_progress, decoration only with
 * progress_decoration, partial results on API 0.4, and the ambient ext.progress.
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { validateProgressParams, validateToolResult, type ApiVersion, type ProgressOptions } from "@octet/protocol";
import { CONTEXT, WireHost, killAll, resultOf, type Frame } from "./harness.js";

afterEach(killAll);

interface Report {
  errors: string[];
  enabled: boolean;
  decorationEnabled: boolean;
}
type Event = Record<string, unknown>;

async function start(api: ApiVersion, optional: string[]): Promise<WireHost> {
  const host = new WireHost("negotiated", [api]);
  resultOf(await host.initialize(api, { optional }));
  return host;
}

/** Runs the progress tool; returns its id, its report and the $/progress frames for it. */
async function run(
  host: WireHost,
  events: Event[],
  ambient = false,
): Promise<{ id: number; report: Report; progress: Frame[] }> {
  const id = host.sendRequest("tool/call", { name: "progress", arguments: { events, ambient }, context: CONTEXT });
  const response = await host.response(id);
  const report = JSON.parse((resultOf(response) as { content: { text: string }[] }).content[0]?.text ?? "") as Report;
  const progress = host.frames.filter(
    (f) => f["method"] === "$/progress" && (f["params"] as { request_id: unknown }).request_id === id,
  );
  // Every progress frame of the request came before its response (PROG-04).
  for (const f of progress)
    assert.ok(host.frames.indexOf(f) < host.frames.indexOf(response), "progress after the response");
  return { id, report, progress };
}

/** Every frame passes the host's own $/progress validator for this negotiation. */
function accepted(frames: Frame[], options: ProgressOptions): void {
  for (const f of frames) {
    const checked = validateProgressParams(f["params"], options);
    assert.ok(checked.ok, checked.ok ? "" : checked.problems.join("; "));
  }
}

const eventsOf = (frames: Frame[]): unknown[] => frames.map((f) => (f["params"] as { event: unknown }).event);
const sequencesOf = (frames: Frame[]): number[] => frames.map((f) => (f["params"] as { sequence: number }).sequence);

const SCRIPT: Event[] = [
  { kind: "status", message: "Fetched 1 of 3 results", options: { current: 1, total: 3, unit: "results" } },
  { kind: "status", message: "Fetched 2 of 3 results", options: { current: 2, total: 3, unit: "results" } },
  { kind: "output", data: "line one\n" },
  { kind: "output", data: "AAEC", options: { stream: "stderr", encoding: "base64" } },
  { kind: "status", message: "done" },
];
const SCRIPT_EVENTS = [
  { type: "status", message: "Fetched 1 of 3 results", current: 1, total: 3, unit: "results" },
  { type: "status", message: "Fetched 2 of 3 results", current: 2, total: 3, unit: "results" },
  { type: "output", stream: "stdout", encoding: "utf8", data: "line one\n" },
  { type: "output", stream: "stderr", encoding: "base64", data: "AAEC" },
  { type: "status", message: "done" },
];

test(
  "PROG-02/PROG-03/PROG-05/PROG-06: status and output events name the request and their sequences " +
    "increase strictly",
  async () => {
    const host = await start("0.2", ["request_progress"]);
    const { id, report, progress } = await run(host, SCRIPT);
    assert.deepEqual(report, { errors: [], enabled: true, decorationEnabled: false });
    assert.deepEqual(eventsOf(progress), SCRIPT_EVENTS);
    for (const f of progress) {
      assert.deepEqual(Object.keys(f).sort(), ["jsonrpc", "method", "params"], "a notification: no id");
      assert.deepEqual(Object.keys(f["params"] as object).sort(), ["event", "request_id", "sequence"]);
      assert.equal((f["params"] as { request_id: unknown }).request_id, id);
    }
    accepted(progress, { api: "0.2", decoration: false, partialResult: false });
    const sequences = sequencesOf(progress);
    for (let i = 1; i < sequences.length; i++)
      assert.ok((sequences[i] ?? 0) > (sequences[i - 1] ?? 0), `sequences ${sequences.join(",")}`);
    // A second request has its own sequence, also strictly increasing and kept apart from the first.
    const second = await run(host, SCRIPT.slice(0, 2));
    assert.notEqual(second.id, id);
    assert.equal(second.progress.length, 2);
    assert.ok((sequencesOf(second.progress)[1] ?? 0) > (sequencesOf(second.progress)[0] ?? 0));
  },
);

test("PROG-04: once a request is answered, its ctx.progress and ext.progress send nothing", async () => {
  const host = await start("0.2", ["request_progress"]);
  const first = await run(host, SCRIPT.slice(0, 1));
  const late = resultOf(await host.request("tool/call", { name: "late", arguments: {}, context: CONTEXT })) as {
    content: { text: string }[];
  };
  const outcomes = late.content[0]?.text.split("\n") ?? [];
  assert.deepEqual(outcomes.slice(0, 2), ["ctx.progress silent", "ext.progress silent"]);
  // The late response is after the late calls: every frame they could have caused is in by now.
  const after = host.frames.filter(
    (f) => f["method"] === "$/progress" && (f["params"] as { request_id: unknown }).request_id === first.id,
  );
  assert.equal(after.length, 1, "only the progress sent while the request was active");
});

test("PROG-01: without request_progress negotiated every progress call is a silent no-op", async () => {
  const host = await start("0.2", ["lifecycle_events", "progress_decoration"]);
  const { report } = await run(host, [...SCRIPT, { kind: "decoration", label: "tag" }]);
  assert.deepEqual(report, { errors: [], enabled: false, decorationEnabled: false });
  resultOf(
    await host.request("tool/call", {
      name: "progress",
      arguments: { events: SCRIPT, ambient: true },
      context: CONTEXT,
    }),
  );
  assert.equal(host.frames.filter((f) => f["method"] === "$/progress").length, 0);
  // On API 0.1 there is nothing to negotiate: the same script sends nothing either.
  const v01 = new WireHost("negotiated", ["0.1"]);
  resultOf(await v01.initialize("0.1"));
  const text = (
    resultOf(await v01.request("tool/call", { name: "progress", arguments: { events: SCRIPT }, context: CONTEXT })) as {
      content: string;
    }
  ).content;
  assert.deepEqual(JSON.parse(text), { errors: [], enabled: false, decorationEnabled: false });
  assert.equal(v01.frames.filter((f) => f["method"] === "$/progress").length, 0);
});

test("PROG-09: a decoration is sent only when progress_decoration was negotiated", async () => {
  const script: Event[] = [
    { kind: "status", message: "working" },
    { kind: "decoration", label: "cache", detail: "warm" },
    { kind: "decoration", label: "bare" },
  ];
  const without = await start("0.2", ["request_progress"]);
  const a = await run(without, script);
  assert.deepEqual(eventsOf(a.progress), [{ type: "status", message: "working" }]);
  assert.equal(a.report.decorationEnabled, false);
  const withDecoration = await start("0.2", ["request_progress", "progress_decoration"]);
  const b = await run(withDecoration, script);
  assert.deepEqual(eventsOf(b.progress), [
    { type: "status", message: "working" },
    { type: "decoration", label: "cache", detail: "warm" },
    { type: "decoration", label: "bare" },
  ]);
  assert.deepEqual(sequencesOf(b.progress), [1, 2, 3]);
  accepted(b.progress, { api: "0.2", decoration: true, partialResult: false });
});

test("PROG-11: on API 0.4 partialResult sends a partial_result event with the final-result shape", async () => {
  const host = await start("0.4", ["request_progress"]);
  const { report, progress } = await run(host, [
    { kind: "status", message: "half way" },
    { kind: "partial", text: "first half" },
  ]);
  assert.deepEqual(report.errors, []);
  const event = eventsOf(progress)[1] as { type: string; result: unknown };
  assert.deepEqual(event, {
    type: "partial_result",
    result: { content: [{ type: "text", text: "first half" }], is_error: false },
  });
  // PROG-12: it passes the final-result rules (no tool given: output_schema does not apply).
  assert.ok(validateToolResult(event.result, "0.4").ok);
  accepted(progress, { api: "0.4", decoration: false, partialResult: true });
});

test("PROG-11: partialResult outside API 0.4 throws instead of sending", async () => {
  const host = await start("0.2", ["request_progress"]);
  const { report, progress } = await run(host, [
    { kind: "partial", text: "x" },
    { kind: "status", message: "after" },
  ]);
  assert.equal(report.errors.length, 1);
  assert.match(
    report.errors[0] ?? "",
    /partialResult\(\) needs API 0\.4 and a tool\/call handler \(this is API 0\.2, tool\/call\)/,
  );
  assert.deepEqual(eventsOf(progress), [{ type: "status", message: "after" }]);
});

test("PROG-02: ext.progress reports for the request whose handler is running, across awaits", async () => {
  const host = await start("0.2", ["request_progress"]);
  const ambient = await run(host, SCRIPT, true);
  assert.deepEqual(ambient.report.errors, []);
  assert.deepEqual(eventsOf(ambient.progress), SCRIPT_EVENTS);
  // Two requests at once: each one's ambient progress goes to its own request id.
  const ids = [0, 1].map((n) =>
    host.sendRequest("tool/call", {
      name: "progress",
      arguments: {
        events: [
          { kind: "status", message: `req ${n}` },
          { kind: "status", message: `req ${n} again` },
        ],
        ambient: true,
      },
      context: CONTEXT,
    }),
  );
  await Promise.all(ids.map((id) => host.response(id)));
  ids.forEach((id, n) => {
    const frames = host.frames.filter(
      (f) => f["method"] === "$/progress" && (f["params"] as { request_id: unknown }).request_id === id,
    );
    assert.deepEqual(eventsOf(frames), [
      { type: "status", message: `req ${n}` },
      { type: "status", message: `req ${n} again` },
    ]);
  });
  // Outside any request there is no request to report on: it throws (reported by the fixture).
  assert.match(
    host.stderr,
    /ambient progress outside a request refused: ext\.progress\.status\(\) was called outside a request handler/,
  );
});

test(
  "PROG-05: a progress call with an argument of the wrong type throws, whether or not progress is " + "negotiated",
  async () => {
    for (const optional of [["request_progress"], []]) {
      const host = await start("0.2", optional);
      const { report, progress } = await run(host, [{ kind: "bad_status" }]);
      assert.deepEqual(report.errors, ["progress.status() message must be a string, got number"]);
      assert.equal(progress.length, 0);
    }
  },
);
