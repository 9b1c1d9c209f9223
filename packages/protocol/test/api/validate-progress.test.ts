import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { base64Problem, validateProgressParams, type ProgressOptions } from "../../src/api/validate-progress.js";
import {
  MAX_CONTENT_PARTS,
  MAX_METADATA_BYTES,
  MAX_PROGRESS_LABEL_BYTES,
  MAX_PROGRESS_TEXT_BYTES,
  MAX_SAFE_JSON_INTEGER,
  MAX_STRUCTURED_CONTENT_BYTES,
} from "../../src/bounds.js";
import { accepted, bytes, refused } from "../helpers/checked.js";
import { PROGRESS_PARAMS, TOOL_RESULT_V02 } from "../helpers/spec-fixtures.js";

const BASE: ProgressOptions = { decoration: false, partialResult: false, api: "0.2" };
const ALL: ProgressOptions = { decoration: true, partialResult: true, api: "0.4" };

function params(event: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { request_id: 2, sequence: 1, event, ...extra };
}

function status(extra: Record<string, unknown>): Record<string, unknown> {
  return params({ type: "status", message: "working", ...extra });
}

function output(extra: Record<string, unknown>): Record<string, unknown> {
  return params({ type: "output", stream: "stdout", encoding: "utf8", data: "line\n", ...extra });
}

function decoration(extra: Record<string, unknown>): Record<string, unknown> {
  return params({ type: "decoration", label: "lint", ...extra });
}

function partial(result: unknown): Record<string, unknown> {
  return params({ type: "partial_result", result });
}

/** {"s":"..."} of exactly n encoded bytes. */
function sized(n: number): Record<string, string> {
  return { s: bytes(n - 8) };
}

test("PROG-02: the $/progress params of the spec are accepted as sent", () => {
  assert.deepEqual(accepted(validateProgressParams(PROGRESS_PARAMS, BASE)), PROGRESS_PARAMS);
});

test("PROG-02: request_id and sequence are required unsigned safe integers", () => {
  for (const key of ["request_id", "sequence"]) {
    const missing = status({});
    delete missing[key];
    refused(validateProgressParams(missing, BASE), `${key}: missing; expected an integer`);
    refused(validateProgressParams({ ...status({}), [key]: -1 }, BASE), `${key}: -1 is below the minimum 0`);
    refused(validateProgressParams({ ...status({}), [key]: 1.5 }, BASE), `${key}: expected an integer, got 1.5`);
    refused(validateProgressParams({ ...status({}), [key]: "2" }, BASE), `${key}: expected an integer, got "2"`);
    refused(
      validateProgressParams({ ...status({}), [key]: MAX_SAFE_JSON_INTEGER + 1 }, BASE),
      `${key}: 9007199254740992 is above 2^53-1`,
    );
    assert.equal(
      accepted(validateProgressParams({ ...status({}), [key]: MAX_SAFE_JSON_INTEGER }, BASE))[key as "sequence"],
      MAX_SAFE_JSON_INTEGER,
    );
    assert.equal(accepted(validateProgressParams({ ...status({}), [key]: 0 }, BASE))[key as "sequence"], 0);
  }
  refused(validateProgressParams([], BASE), "expected an object, got array");
  refused(
    validateProgressParams(params(undefined as unknown as Record<string, unknown>), BASE),
    "event: missing; expected an object",
  );
});

test("PROG-02: $/progress does not exist on API 0.1", () => {
  refused(validateProgressParams(PROGRESS_PARAMS, { ...ALL, api: "0.1" }), "$/progress is not part of API 0.1");
});

test("PROG-02: unknown members of params and event are ignored and not carried over", () => {
  const v = accepted(validateProgressParams({ ...status({ percent: 30 }), token: "x" }, BASE));
  assert.deepEqual(v, { request_id: 2, sequence: 1, event: { type: "status", message: "working" } });
});

test("PROG-02: an unknown or missing event type is refused", () => {
  refused(
    validateProgressParams(params({ type: "log", message: "x" }), ALL),
    'event.type: "log" is not one of "status", "output", "decoration", "partial_result"',
  );
  refused(validateProgressParams(params({ message: "x" }), ALL), "event.type: missing; expected one of");
  refused(validateProgressParams(params({ type: 1 }), ALL), "event.type: expected one of", "got number");
});

test("PROG-05: a status event needs a message; current, total and unit are optional", () => {
  assert.deepEqual(accepted(validateProgressParams(status({}), BASE)).event, { type: "status", message: "working" });
  assert.deepEqual(accepted(validateProgressParams(status({ current: null, total: null, unit: null }), BASE)).event, {
    type: "status",
    message: "working",
  });
  refused(validateProgressParams(params({ type: "status" }), BASE), "event.message: missing; expected a string");
  refused(validateProgressParams(status({ message: 3 }), BASE), "event.message: expected a string, got number");
  refused(validateProgressParams(status({ unit: ["x"] }), BASE), "event.unit: expected a string, got array");
});

test("PROG-05: current and total are non-negative finite numbers, fractions allowed", () => {
  const v = accepted(validateProgressParams(status({ current: 0.5, total: 0 }), BASE)).event;
  assert.deepEqual(v, { type: "status", message: "working", current: 0.5, total: 0 });
  for (const key of ["current", "total"]) {
    refused(validateProgressParams(status({ [key]: -1 }), BASE), `event.${key}: -1 is below the minimum 0`);
    refused(validateProgressParams(status({ [key]: "3" }), BASE), `event.${key}: expected a finite number, got "3"`);
    refused(
      validateProgressParams(status({ [key]: Number.POSITIVE_INFINITY }), BASE),
      `event.${key}: expected a finite number, got Infinity`,
    );
    refused(
      validateProgressParams(status({ [key]: Number.NaN }), BASE),
      `event.${key}: expected a finite number, got NaN`,
    );
  }
  // Nothing ties current to total: a total may be an estimate the work outgrows.
  accepted(validateProgressParams(status({ current: 11, total: 10 }), BASE));
});

test("PROG-10: a 4 KiB status message is accepted, one byte more is refused naming size and limit", () => {
  accepted(validateProgressParams(status({ message: bytes(MAX_PROGRESS_TEXT_BYTES) }), BASE));
  accepted(validateProgressParams(status({ message: "é".repeat(MAX_PROGRESS_TEXT_BYTES / 2) }), BASE));
  refused(
    validateProgressParams(status({ message: bytes(MAX_PROGRESS_TEXT_BYTES + 1) }), BASE),
    "event.message: 4097 bytes, over the 4096-byte limit",
  );
});

test("PROG-10: a 256-byte status unit is accepted, 257 is refused naming size and limit", () => {
  accepted(validateProgressParams(status({ unit: bytes(MAX_PROGRESS_LABEL_BYTES) }), BASE));
  refused(
    validateProgressParams(status({ unit: bytes(MAX_PROGRESS_LABEL_BYTES + 1) }), BASE),
    "event.unit: 257 bytes, over the 256-byte limit",
  );
});

test("PROG-10: status text allows LF and TAB but no other control character", () => {
  accepted(validateProgressParams(status({ message: "a\n\tb", unit: "x\ty" }), BASE));
  for (const [ch, code] of [
    ["\r", "U+000D"],
    ["\u0000", "U+0000"],
    ["\u001b", "U+001B"],
    ["\u007f", "U+007F"],
    ["\u009b", "U+009B"],
  ] as const) {
    refused(
      validateProgressParams(status({ message: `ok${ch}` }), BASE),
      "event.message: control character",
      code,
      "at index 2",
      "only LF and TAB",
    );
    refused(validateProgressParams(status({ unit: `u${ch}` }), BASE), "event.unit: control character", code);
  }
});

test("PROG-06: output events carry stream, encoding and data, all required", () => {
  for (const stream of ["stdout", "stderr"]) {
    for (const [encoding, data] of [
      ["utf8", "any \u0000 text\r\n"],
      ["base64", "aGVsbG8="],
    ]) {
      const event = { type: "output", stream, encoding, data };
      assert.deepEqual(accepted(validateProgressParams(params(event), BASE)).event, event);
    }
  }
  refused(
    validateProgressParams(output({ stream: "stdin" }), BASE),
    'event.stream: "stdin" is not one of "stdout", "stderr"',
  );
  refused(
    validateProgressParams(output({ encoding: "hex" }), BASE),
    'event.encoding: "hex" is not one of "utf8", "base64"',
  );
  for (const key of ["stream", "encoding", "data"])
    refused(validateProgressParams(output({ [key]: undefined }), BASE), `event.${key}: missing`);
  refused(validateProgressParams(output({ data: [1] }), BASE), "event.data: expected a string, got array");
});

test("PROG-06: output data is bounded by the frame only: a 1 MiB string is accepted", () => {
  accepted(validateProgressParams(output({ data: bytes(1_048_576) }), BASE));
  accepted(validateProgressParams(output({ encoding: "base64", data: "QUJD".repeat(262_144) }), BASE));
});

test("PROG-06: base64 data must be valid RFC 4648 base64, padded", () => {
  for (const ok of ["", "QQ==", "QUI=", "QUJD", "+/+/", "aGVsbG8gd29ybGQ="]) {
    assert.equal(base64Problem(ok), undefined, ok);
    accepted(validateProgressParams(output({ encoding: "base64", data: ok }), BASE));
  }
  refused(
    validateProgressParams(output({ encoding: "base64", data: "QQ" }), BASE),
    "event.data: not valid base64: length 2 is not a multiple of 4",
  );
  refused(
    validateProgressParams(output({ encoding: "base64", data: "QU-D" }), BASE),
    'event.data: not valid base64: character "-" at index 2 is not in the base64 alphabet',
  );
  for (const bad of ["Q===", "====", "QQ=A", "QUJD\n", "QU JD", "QUJ_", "é123"]) {
    assert.notEqual(base64Problem(bad), undefined, bad);
    refused(validateProgressParams(output({ encoding: "base64", data: bad }), BASE), "event.data: not valid base64");
  }
});

test("PROG-06: base64 validity agrees with a strict decoder on random strings", () => {
  const strict = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ unit: fc.constantFrom(..."AZaz09+/=-_ \n") }),
        fc.uint8Array().map((b) => Buffer.from(b).toString("base64")),
      ),
      (s) => {
        assert.equal(base64Problem(s) === undefined, strict.test(s), JSON.stringify(s));
        return true;
      },
    ),
    { numRuns: 500 },
  );
});

test("PROG-09: decoration events are refused unless progress_decoration was negotiated", () => {
  refused(
    validateProgressParams(decoration({}), BASE),
    'event.type: "decoration" events need progress_decoration negotiated',
  );
  refused(validateProgressParams(decoration({}), { ...ALL, decoration: false }), "progress_decoration");
  const opts = { ...BASE, decoration: true };
  assert.deepEqual(accepted(validateProgressParams(decoration({}), opts)).event, { type: "decoration", label: "lint" });
  assert.deepEqual(accepted(validateProgressParams(decoration({ detail: "3 warnings" }), opts)).event, {
    type: "decoration",
    label: "lint",
    detail: "3 warnings",
  });
  refused(validateProgressParams(params({ type: "decoration" }), opts), "event.label: missing; expected a string");
  refused(validateProgressParams(decoration({ detail: 3 }), opts), "event.detail: expected a string, got number");
});

test(
  "PROG-10: a 256-byte decoration label and a 4 KiB detail are accepted; one byte more is refused naming " +
    "size and limit",
  () => {
    const opts = { ...BASE, decoration: true };
    accepted(
      validateProgressParams(
        decoration({ label: bytes(MAX_PROGRESS_LABEL_BYTES), detail: bytes(MAX_PROGRESS_TEXT_BYTES) }),
        opts,
      ),
    );
    refused(
      validateProgressParams(decoration({ label: bytes(MAX_PROGRESS_LABEL_BYTES + 1) }), opts),
      "event.label: 257 bytes, over the 256-byte limit",
    );
    refused(
      validateProgressParams(decoration({ detail: bytes(MAX_PROGRESS_TEXT_BYTES + 1) }), opts),
      "event.detail: 4097 bytes, over the 4096-byte limit",
    );
  },
);

test("PROG-10: decoration text allows LF and TAB but no other control character", () => {
  const opts = { ...BASE, decoration: true };
  accepted(validateProgressParams(decoration({ label: "a\tb", detail: "x\ny" }), opts));
  refused(
    validateProgressParams(decoration({ label: "a\rb" }), opts),
    "event.label: control character U+000D at index 1",
  );
  refused(
    validateProgressParams(decoration({ detail: "\u0007" }), opts),
    "event.detail: control character U+0007 at index 0",
  );
});

test("PROG-11: a partial_result is admitted on API 0.4 when the caller says the request allows it", () => {
  const v = accepted(validateProgressParams(partial(TOOL_RESULT_V02), ALL)).event;
  assert.deepEqual(v, { type: "partial_result", result: TOOL_RESULT_V02 });
  // is_error defaults to false, and only the members of a result are carried over.
  const min = accepted(
    validateProgressParams(partial({ content: [{ type: "text", text: "so far" }], extra: 1 }), ALL),
  ).event;
  assert.deepEqual(min, {
    type: "partial_result",
    result: { content: [{ type: "text", text: "so far" }], is_error: false },
  });
});

test("PROG-11: a partial_result is refused without the caller's admission or before API 0.4", () => {
  refused(
    validateProgressParams(partial(TOOL_RESULT_V02), { ...ALL, partialResult: false }),
    'event.type: "partial_result" events are admitted only for an active tool/call',
  );
  refused(
    validateProgressParams(partial(TOOL_RESULT_V02), { ...ALL, api: "0.2" }),
    'event.type: "partial_result" events need API 0.4, not 0.2',
  );
});

test("PROG-12: a partial_result uses the final result's content-part rules, with paths under event.result", () => {
  refused(validateProgressParams(partial(undefined), ALL), "event.result: missing; expected an object");
  refused(validateProgressParams(partial({ content: [] }), ALL), "event.result.content: must not be empty");
  refused(
    validateProgressParams(partial({ content: "text" }), ALL),
    "event.result.content: expected an array, got string",
  );
  refused(
    validateProgressParams(partial({ content: [{ type: "image", artifact_id: "a", mime_type: "image/png" }] }), ALL),
    "event.result.content: no text part",
  );
  refused(
    validateProgressParams(partial({ content: [{ type: "video" }] }), ALL),
    'event.result.content[0].type: "video" is not one of',
  );
  refused(
    validateProgressParams(partial({ content: [{ type: "text", text: "a", x: 1 }] }), ALL),
    "event.result.content[0].x: unknown member",
  );
  refused(
    validateProgressParams(partial({ content: [{ type: "text", text: "a" }], is_error: "no" }), ALL),
    "event.result.is_error: expected a boolean, got string",
  );
});

test("PROG-12: a partial_result of 256 parts is accepted, 257 are refused naming count and limit", () => {
  const parts = (n: number): unknown[] => Array.from({ length: n }, (_, i) => ({ type: "text", text: `p${i}` }));
  accepted(validateProgressParams(partial({ content: parts(MAX_CONTENT_PARTS) }), ALL));
  refused(
    validateProgressParams(partial({ content: parts(MAX_CONTENT_PARTS + 1) }), ALL),
    "event.result.content: 257 parts, over the 256-part limit",
  );
});

test("PROG-12: partial structured_content and metadata keep the final result's byte limits", () => {
  const text = [{ type: "text", text: "t" }];
  accepted(
    validateProgressParams(partial({ content: text, structured_content: sized(MAX_STRUCTURED_CONTENT_BYTES) }), ALL),
  );
  refused(
    validateProgressParams(
      partial({ content: text, structured_content: sized(MAX_STRUCTURED_CONTENT_BYTES + 1) }),
      ALL,
    ),
    "event.result.structured_content: at least",
    "over the 262144-byte limit",
  );
  accepted(validateProgressParams(partial({ content: text, metadata: sized(MAX_METADATA_BYTES) }), ALL));
  refused(
    validateProgressParams(partial({ content: text, metadata: sized(MAX_METADATA_BYTES + 1) }), ALL),
    "event.result.metadata: at least",
    "over the 65536-byte limit",
  );
});

test("PROG-12: a partial_result need not satisfy an output_schema: structured_content is optional and free", () => {
  const v = accepted(
    validateProgressParams(partial({ content: [{ type: "text", text: "t" }], structured_content: [1, "two"] }), ALL),
  ).event;
  assert.deepEqual(v, {
    type: "partial_result",
    result: { content: [{ type: "text", text: "t" }], is_error: false, structured_content: [1, "two"] },
  });
});

test("a refusal reports the problems of params and event together", () => {
  const problems = refused(
    validateProgressParams({ request_id: -1, sequence: "x", event: { type: "status", message: 1, current: -2 } }, BASE),
  );
  for (const start of ["request_id:", "sequence:", "event.message:", "event.current:"]) {
    assert.ok(
      problems.some((p) => p.startsWith(start)),
      `${start}\n${problems.join("\n")}`,
    );
  }
});

test("validateProgressParams never throws, whatever the input", () => {
  const options = fc.record({
    decoration: fc.boolean(),
    partialResult: fc.boolean(),
    api: fc.constantFrom("0.1" as const, "0.2" as const, "0.4" as const),
  });
  const type = fc.constantFrom("status", "output", "decoration", "partial_result", "x");
  fc.assert(
    fc.property(fc.anything(), fc.anything(), type, options, (v, w, t, o) => {
      validateProgressParams(v, o);
      validateProgressParams({ request_id: v, sequence: w, event: v }, o);
      const event = {
        type: t,
        message: v,
        current: w,
        total: v,
        unit: w,
        stream: v,
        encoding: w,
        data: v,
        label: v,
        detail: w,
        result: v,
      };
      validateProgressParams(params(event), o);
      validateProgressParams(
        partial({ content: [v, { type: "text", text: w }], structured_content: v, metadata: w, is_error: v }),
        o,
      );
      return true;
    }),
    { numRuns: 300 },
  );
});
