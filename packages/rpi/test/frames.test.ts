import { test } from "node:test";
import assert from "node:assert/strict";
import { parseExtensionFrame, resolveEventName, PI_EVENTS_33 } from "../src/index.js";

test("RPI-22: the extension hello frame is read with its manifest", () => {
  const r = parseExtensionFrame({
    type: "hello",
    protocolVersion: 1,
    manifest: { id: "pi-weather", name: "Weather", version: "0.1.0", capabilities: ["tools"], uiCapabilities: [] },
  });
  assert.deepEqual(r, {
    ok: true,
    frame: {
      type: "hello",
      protocolVersion: 1,
      manifest: { id: "pi-weather", name: "Weather", version: "0.1.0", capabilities: ["tools"], uiCapabilities: [] },
    },
  });
  const bad = parseExtensionFrame({ type: "hello", protocolVersion: 2, manifest: {} });
  assert.equal(bad.ok, false);
  assert.match(!bad.ok ? bad.problem : "", /protocolVersion must be 1 \(got 2\)/);
});

test(
  "RPI-27, RPI-28, RPI-29: register, response (success, error, cancelled), update, request and cancel " + "frames",
  () => {
    const reg = parseExtensionFrame({
      type: "register",
      registration: {
        kind: "tool",
        tool: {
          name: "weather",
          label: "Weather",
          description: "Get current weather",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    });
    assert.ok(
      reg.ok &&
        reg.frame.type === "register" &&
        reg.frame.registration.kind === "tool" &&
        reg.frame.registration.tool.label === "Weather",
    );
    const ok = parseExtensionFrame({
      type: "response",
      id: "req-2",
      result: { status: "success", value: { content: [{ type: "text", text: "15 °C, cloudy" }] } },
    });
    assert.ok(ok.ok && ok.frame.type === "response" && ok.frame.result.status === "success");
    const err = parseExtensionFrame({
      type: "response",
      id: "req-2",
      result: { status: "error", error: { message: "boom", code: "x" } },
    });
    assert.deepEqual(err.ok && err.frame, {
      type: "response",
      id: "req-2",
      result: { status: "error", error: { message: "boom", code: "x" } },
    });
    assert.deepEqual(parseExtensionFrame({ type: "response", id: "r", result: { status: "cancelled" } }), {
      ok: true,
      frame: { type: "response", id: "r", result: { status: "cancelled" } },
    });
    assert.equal(parseExtensionFrame({ type: "response", id: "r", result: { status: "done" } }).ok, false);
    assert.deepEqual(parseExtensionFrame({ type: "update", id: "req-2", value: { content: [] } }), {
      ok: true,
      frame: { type: "update", id: "req-2", value: { content: [] } },
    });
    assert.ok(
      parseExtensionFrame({
        type: "request",
        id: "e1",
        request: { kind: "ui", ui: { request: { type: "notify", message: "hi", level: "info" } } },
      }).ok,
    );
    assert.ok(
      parseExtensionFrame({
        type: "request",
        id: "e2",
        request: { kind: "action", action: { kind: "set_session_name", name: "x" } },
      }).ok,
    );
    assert.deepEqual(parseExtensionFrame({ type: "cancel", id: "e1" }), {
      ok: true,
      frame: { type: "cancel", id: "e1" },
    });
    assert.deepEqual(
      parseExtensionFrame({ type: "register", registration: { kind: "event_hook", hook: { event: "tool_call" } } }),
      { ok: true, frame: { type: "register", registration: { kind: "hook", hook: { event: "tool_call" } } } },
    );
    assert.deepEqual(parseExtensionFrame({ type: "unregister", registration: { kind: "tool", name: "weather" } }), {
      ok: true,
      frame: { type: "unregister", registration: { kind: "tool", name: "weather" } },
    });
  },
);

test("RPI-37: an unknown type or a malformed member is a problem that names it", () => {
  for (const [frame, expected] of [
    [{ type: "telemetry" }, /unknown frame type "telemetry"/],
    [[1], /must be a JSON object/],
    [
      { type: "register", registration: { kind: "tool", tool: { name: "", description: "d" } } },
      /registration\.tool\.name/,
    ],
    [{ type: "register", registration: { kind: "widget" } }, /registration\.kind must be/],
    [{ type: "response", result: { status: "success" } }, /response\.id must be a non-empty string/],
    [
      { type: "request", id: "x", request: { kind: "ui", ui: { request: { type: "confirm" }, timeoutMs: -1 } } },
      /timeoutMs must be a positive number/,
    ],
  ] as const) {
    const r = parseExtensionFrame(frame);
    assert.equal(r.ok, false, JSON.stringify(frame));
    assert.match(!r.ok ? r.problem : "", expected);
  }
});

test(
  "QJS-07: the 33 pi lifecycle names are known; the older names map to current ones; unknown names are " + "refused",
  () => {
    assert.equal(PI_EVENTS_33.length, 33);
    assert.equal(new Set(PI_EVENTS_33).size, 33);
    for (const name of PI_EVENTS_33) assert.deepEqual(resolveEventName(name), { event: name, alias: false });
    assert.deepEqual(resolveEventName("session_switch"), { event: "session_start", alias: true });
    assert.deepEqual(resolveEventName("session_fork"), { event: "session_start", alias: true });
    assert.equal(resolveEventName("tool_called"), null);
  },
);

test("RPI-29: the log frame (handler errors and warnings of an extension) is read; a bad level is a problem", () => {
  assert.deepEqual(parseExtensionFrame({ type: "log", level: "warning", message: "old event name" }), {
    ok: true,
    frame: { type: "log", level: "warning", message: "old event name" },
  });
  const bad = parseExtensionFrame({ type: "log", level: "debug", message: "x" });
  assert.match(!bad.ok ? bad.problem : "", /log\.level must be "info", "warning" or "error" \(got "debug"\)/);
  const noMessage = parseExtensionFrame({ type: "log", level: "info" });
  assert.match(!noMessage.ok ? noMessage.problem : "", /log\.message must be a string/);
});
