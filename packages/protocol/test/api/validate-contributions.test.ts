import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  validateConfirmationParams,
  validateContextContribution,
  validateContextContributions,
  validateNotification,
  validateStatusContribution,
  validateStatusResult,
} from "../../src/api/validate-contributions.js";
import {
  MAX_CONTEXT_CONTENT_BYTES,
  MAX_CONTEXT_ENTRIES,
  MAX_CONTEXT_LABEL_BYTES,
  MAX_NOTIFICATION_MESSAGE_BYTES,
  MAX_NOTIFICATION_TITLE_BYTES,
  MAX_SAFE_JSON_INTEGER,
  MAX_STATUS_TEXT_BYTES,
} from "../../src/bounds.js";
import { accepted, bytes, refused } from "../helpers/checked.js";
import {
  CONFIRMATION_PARAMS,
  CONTEXT_COLLECT_RESULT,
  CONTEXT_CONTRIBUTION,
  NOTIFICATION,
  STATUS_CONTRIBUTION,
  STATUS_RESULT,
} from "../helpers/spec-fixtures.js";

test("CTX-01: the context/collect result of the spec is accepted; the result must be an array", () => {
  assert.deepEqual(accepted(validateContextContributions(CONTEXT_COLLECT_RESULT)), CONTEXT_COLLECT_RESULT);
  assert.deepEqual(accepted(validateContextContributions([])), []);
  refused(validateContextContributions(CONTEXT_COLLECT_RESULT[0]), "expected an array, got object");
  refused(validateContextContributions(null), "expected an array, got null");
  refused(validateContextContributions([{ label: "a", content: 1 }]), "[0].content: expected a string, got number");
});

test("CTX-02: placement defaults to prompt_suffix; the four placements are accepted and others refused", () => {
  assert.equal(accepted(validateContextContribution({ label: "l", content: "c" })).placement, "prompt_suffix");
  assert.equal(
    accepted(validateContextContribution({ label: "l", content: "c", placement: null })).placement,
    "prompt_suffix",
  );
  for (const placement of ["system_prefix", "system_suffix", "prompt_prefix", "prompt_suffix"]) {
    assert.equal(accepted(validateContextContribution({ label: "l", content: "c", placement })).placement, placement);
  }
  refused(
    validateContextContribution({ label: "l", content: "c", placement: "system" }),
    'placement: "system" is not one of "system_prefix", "system_suffix", "prompt_prefix", "prompt_suffix"',
  );
  refused(validateContextContribution({ label: "l", content: "c", placement: 1 }), "placement: expected one of");
});

test("CTX-04: the context/contribution params of the spec are accepted", () => {
  assert.deepEqual(accepted(validateContextContribution(CONTEXT_CONTRIBUTION)), CONTEXT_CONTRIBUTION);
  refused(validateContextContribution({ content: "c" }), "label: missing; expected a string");
});

test("CTX-06: a 256-byte label is accepted, 257 is refused naming size and limit", () => {
  accepted(validateContextContribution({ label: bytes(MAX_CONTEXT_LABEL_BYTES), content: "c" }));
  refused(
    validateContextContribution({ label: bytes(MAX_CONTEXT_LABEL_BYTES + 1), content: "c" }),
    "label: 257 bytes, over the 256-byte limit",
  );
});

test("CTX-06: 64 KiB of content is accepted, one byte more is refused naming size and limit", () => {
  accepted(validateContextContribution({ label: "l", content: bytes(MAX_CONTEXT_CONTENT_BYTES) }));
  refused(
    validateContextContribution({ label: "l", content: bytes(MAX_CONTEXT_CONTENT_BYTES + 1) }),
    "content: 65537 bytes, over the 65536-byte limit",
  );
  // Bytes, not characters: 32,769 three-byte characters are 98,307 bytes.
  refused(
    validateContextContribution({ label: "l", content: "€".repeat(MAX_CONTEXT_CONTENT_BYTES / 2 + 1) }),
    "content: 98307 bytes, over the 65536-byte limit",
  );
});

test("CTX-06: 32 entries are accepted, 33 are refused naming count and limit", () => {
  const entry = { label: "l", content: "c" };
  assert.equal(accepted(validateContextContributions(new Array(MAX_CONTEXT_ENTRIES).fill(entry))).length, 32);
  refused(
    validateContextContributions(new Array(MAX_CONTEXT_ENTRIES + 1).fill(entry)),
    "33 entries, over the 32-entry limit",
  );
});

test("STAT-02: the status/collect result of the spec is accepted, and null contributes nothing", () => {
  assert.deepEqual(accepted(validateStatusResult(STATUS_RESULT, "status")), STATUS_RESULT);
  assert.equal(accepted(validateStatusResult(null, "footer")), null);
  refused(validateStatusResult("hello", "status"), "expected an object, got string");
});

test("STAT-02: the result answers the requested surface: absent reads as it, another one is refused", () => {
  const { surface: _omitted, ...rest } = STATUS_RESULT;
  assert.equal(accepted(validateStatusResult(rest, "header"))?.surface, "header");
  refused(
    validateStatusResult(STATUS_RESULT, "footer"),
    'surface: "status" does not match the requested surface "footer"',
  );
});

test("STAT-03: the status/contribution params of the spec are accepted", () => {
  assert.deepEqual(accepted(validateStatusContribution(STATUS_CONTRIBUTION)), STATUS_CONTRIBUTION);
});

test(
  "STAT-03: surface is required and one of status/header/footer; style_role is a string or null; priority " +
    "an integer defaulting to 0",
  () => {
    const base = { surface: "footer", text: "t" };
    assert.deepEqual(accepted(validateStatusContribution(base)), {
      surface: "footer",
      text: "t",
      style_role: null,
      priority: 0,
    });
    assert.equal(accepted(validateStatusContribution({ ...base, priority: -5 })).priority, -5);
    refused(
      validateStatusContribution({ text: "t" }),
      'surface: missing; expected one of "status", "header", "footer"',
    );
    refused(
      validateStatusContribution({ ...base, surface: "sidebar" }),
      'surface: "sidebar" is not one of "status", "header", "footer"',
    );
    refused(
      validateStatusContribution({ ...base, style_role: {} }),
      "style_role: expected a string or null, got object",
    );
    refused(validateStatusContribution({ ...base, priority: 1.5 }), "priority: expected an integer, got 1.5");
    refused(validateStatusContribution({ ...base, priority: "1" }), 'priority: expected an integer, got "1"');
    refused(
      validateStatusContribution({ ...base, priority: MAX_SAFE_JSON_INTEGER + 2 }),
      "priority:",
      "cannot be represented exactly",
    );
    refused(validateStatusContribution({ surface: "status" }), "text: missing; expected a string");
  },
);

test(
  "bound MAX_STATUS_TEXT_BYTES: 4 KiB of status text is accepted, one byte more is refused naming size " + "and limit",
  () => {
    accepted(validateStatusContribution({ surface: "status", text: bytes(MAX_STATUS_TEXT_BYTES) }));
    refused(
      validateStatusContribution({ surface: "status", text: bytes(MAX_STATUS_TEXT_BYTES + 1) }),
      "text: 4097 bytes, over the 4096-byte limit",
    );
    refused(
      validateStatusResult({ text: bytes(MAX_STATUS_TEXT_BYTES + 1) }, "status"),
      "text: 4097 bytes, over the 4096-byte limit",
    );
  },
);

test("NOTIF-01: the notification params of the spec are accepted as {level, title, message}", () => {
  assert.deepEqual(accepted(validateNotification(NOTIFICATION)), NOTIFICATION);
  refused(validateNotification({ level: "info", message: "m" }), "title: missing; expected a string");
  refused(validateNotification({ level: "info", title: "t" }), "message: missing; expected a string");
  refused(validateNotification([]), "expected an object, got array");
});

test("NOTIF-02: level defaults to info; the four levels are accepted and others refused", () => {
  assert.equal(accepted(validateNotification({ title: "t", message: "m" })).level, "info");
  for (const level of ["info", "success", "warning", "error"])
    assert.equal(accepted(validateNotification({ level, title: "t", message: "m" })).level, level);
  refused(
    validateNotification({ level: "debug", title: "t", message: "m" }),
    'level: "debug" is not one of "info", "success", "warning", "error"',
  );
});

test("NOTIF-03: a 256-byte title is accepted, 257 is refused naming size and limit", () => {
  accepted(validateNotification({ title: bytes(MAX_NOTIFICATION_TITLE_BYTES), message: "m" }));
  refused(
    validateNotification({ title: bytes(MAX_NOTIFICATION_TITLE_BYTES + 1), message: "m" }),
    "title: 257 bytes, over the 256-byte limit",
  );
});

test("NOTIF-03: a 4 KiB message is accepted, one byte more is refused naming size and limit", () => {
  accepted(validateNotification({ title: "t", message: bytes(MAX_NOTIFICATION_MESSAGE_BYTES) }));
  refused(
    validateNotification({ title: "t", message: bytes(MAX_NOTIFICATION_MESSAGE_BYTES + 1) }),
    "message: 4097 bytes, over the 4096-byte limit",
  );
});

test("CONF-01: the confirmation/request params of the spec are accepted", () => {
  assert.deepEqual(accepted(validateConfirmationParams(CONFIRMATION_PARAMS, "0.2")), CONFIRMATION_PARAMS);
  assert.deepEqual(accepted(validateConfirmationParams(CONFIRMATION_PARAMS, "0.4")), CONFIRMATION_PARAMS);
});

test(
  "CONF-01: prompt is a non-empty string, detail optional, destructive and default booleans " + "defaulting to false",
  () => {
    assert.deepEqual(accepted(validateConfirmationParams({ parent_request_id: 1, prompt: "Go?" }, "0.2")), {
      parent_request_id: 1,
      prompt: "Go?",
      destructive: false,
      default: false,
    });
    refused(validateConfirmationParams({ parent_request_id: 1, prompt: "" }, "0.2"), "prompt: must not be empty");
    refused(validateConfirmationParams({ parent_request_id: 1 }, "0.2"), "prompt: missing; expected a string");
    refused(
      validateConfirmationParams({ parent_request_id: 1, prompt: "p", detail: 5 }, "0.2"),
      "detail: expected a string, got number",
    );
    refused(
      validateConfirmationParams({ parent_request_id: 1, prompt: "p", destructive: "yes" }, "0.2"),
      "destructive: expected a boolean, got string",
    );
    refused(
      validateConfirmationParams({ parent_request_id: 1, prompt: "p", default: 1 }, "0.2"),
      "default: expected a boolean, got number",
    );
  },
);

test("CONF-02: on API 0.2+ parent_request_id is a required unsigned integer", () => {
  for (const api of ["0.2", "0.4"] as const) {
    const { parent_request_id: _omitted, ...rest } = CONFIRMATION_PARAMS;
    refused(validateConfirmationParams(rest, api), "parent_request_id: missing; expected an integer");
    refused(
      validateConfirmationParams({ ...rest, parent_request_id: -1 }, api),
      "parent_request_id: -1 is below the minimum 0",
    );
    refused(
      validateConfirmationParams({ ...rest, parent_request_id: "2" }, api),
      'parent_request_id: expected an integer, got "2"',
    );
    refused(
      validateConfirmationParams({ ...rest, parent_request_id: 2.5 }, api),
      "parent_request_id: expected an integer, got 2.5",
    );
    assert.equal(accepted(validateConfirmationParams({ ...rest, parent_request_id: 0 }, api)).parent_request_id, 0);
  }
});

test("CONF-02: frozen API 0.1 omits parent_request_id; one that is sent is dropped", () => {
  const { parent_request_id: _omitted, ...rest } = CONFIRMATION_PARAMS;
  assert.deepEqual(accepted(validateConfirmationParams(rest, "0.1")), rest);
  assert.equal("parent_request_id" in accepted(validateConfirmationParams(CONFIRMATION_PARAMS, "0.1")), false);
  assert.equal(
    "parent_request_id" in accepted(validateConfirmationParams({ ...rest, parent_request_id: "junk" }, "0.1")),
    false,
  );
});

test("contribution validators never throw, whatever the input", () => {
  fc.assert(
    fc.property(fc.anything(), (v) => {
      validateContextContributions(v);
      validateContextContribution(v);
      validateStatusResult(v, "status");
      validateStatusContribution(v);
      validateNotification(v);
      validateConfirmationParams(v, "0.1");
      validateConfirmationParams(v, "0.2");
      return true;
    }),
    { numRuns: 300 },
  );
});

test(
  "bound MAX_CONFIRMATION_TEXT_BYTES: a 16 KiB confirmation prompt and detail are accepted, one byte more " +
    "is refused",
  () => {
    const ok = validateConfirmationParams({ prompt: "é".repeat(8192), detail: "d".repeat(16_384) }, "0.1");
    assert.equal(ok.ok, true);
    const longPrompt = validateConfirmationParams({ prompt: "é".repeat(8192) + "x" }, "0.1");
    assert.equal(longPrompt.ok, false);
    assert.match(longPrompt.ok ? "" : longPrompt.problems.join(";"), /prompt.*16385 bytes.*16384/);
    const longDetail = validateConfirmationParams({ prompt: "p", detail: "d".repeat(16_385) }, "0.1");
    assert.equal(longDetail.ok, false);
  },
);
