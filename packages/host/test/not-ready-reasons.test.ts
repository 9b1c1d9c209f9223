import { test } from "node:test";
import assert from "node:assert/strict";
import { notReadyReasons, type ExtensionStatus } from "../src/index.js";

const base = { enabled: true, restarts: 0, supervision: "off", lastError: null, reason: "" } as const;

test(
  "issue 13.3 (review): a copy shadowed by the one that runs is not a reason why nothing answers; a real " +
    "invalid manifest is",
  () => {
    const list = [
      { ...base, name: "hello", state: "ready", errors: [] },
      {
        ...base,
        name: "hello",
        state: "invalid",
        errors: ["/p/.octet/extensions/hello/extension.toml: is shadowed by /g/extensions/hello/extension.toml"],
      },
      {
        ...base,
        name: "broken",
        state: "invalid",
        errors: ['/x/extension.toml: key "api_version": must be the string "0.1", "0.2" or "0.4", got string "0.9"'],
      },
    ] as unknown as ExtensionStatus[];
    const reasons = notReadyReasons(list, ["hello", "broken"]);
    assert.equal(reasons.length, 1, JSON.stringify(reasons));
    assert.match(reasons[0]!, /extension "broken" has an invalid manifest: .*api_version/);
  },
);
