/**
 * Issue 13.10: docs/sdk-options.md documents every option an author can pass to the SDK helpers.
 * The option names are read from the SDKs themselves (the Python signatures, the TypeScript
 * option interfaces), so a new option without documentation fails here.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./helpers.js";

const DOC = readFileSync(join(ROOT, "docs", "sdk-options.md"), "utf8");
/** Every identifier inside a code span or code block of the page. */
const documented = new Set(
  [...DOC.matchAll(/`+([^`]+)`+/g)].flatMap((m) => m[1]!.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []),
);

test("issue 13.10: every keyword of the Python SDK's helpers is documented in docs/sdk-options.md", () => {
  const script = `
import inspect, json
from octet_extension import Extension
from octet_extension.progress import RequestProgress
from octet_extension.host_services import Policy, Secrets
from octet_extension.presentation import Presentation
fns = [Extension.confirm, Extension.input, Extension.publish_artifact, Extension.notify, RequestProgress.status,
       RequestProgress.output, RequestProgress.decoration, RequestProgress.partial_result, Policy.evaluate, Secrets.get,
       Presentation.update]
print(json.dumps({f.__qualname__: [p for p in inspect.signature(f).parameters if p != "self"] for f in fns}))
`;
  const r = spawnSync("python3", ["-c", script], {
    encoding: "utf8",
    env: { ...process.env, PYTHONPATH: join(ROOT, "sdk", "python") },
  });
  assert.equal(r.status, 0, r.stderr);
  const params = JSON.parse(r.stdout) as Record<string, string[]>;
  const missing = Object.entries(params).flatMap(([fn, names]) =>
    names.filter((n) => !documented.has(n)).map((n) => `${fn}(${n})`),
  );
  assert.deepEqual(missing, []);
});

test("issue 13.10: every field of the TypeScript SDK's option types is documented in docs/sdk-options.md", () => {
  const sources = ["types.ts", "host-services.ts", "presentation.ts"]
    .map((f) => readFileSync(join(ROOT, "sdk", "typescript", "src", f), "utf8"))
    .join("\n");
  const interfaces = [
    "ConfirmOptions",
    "InputOptions",
    "ProgressStatusOptions",
    "ProgressOutputOptions",
    "PublishArtifactOptions",
    "NotificationInput",
    "IntentInput",
    "PresentationUpdateOptions",
  ];
  const missing: string[] = [];
  for (const name of interfaces) {
    const body = new RegExp(`export interface ${name} \\{([^]*?)\\n\\}`).exec(sources)?.[1];
    assert.ok(body, `interface ${name} found`);
    const fields = [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]!);
    assert.ok(fields.length > 0, `${name} has fields`);
    missing.push(...fields.filter((f) => !documented.has(f)).map((f) => `${name}.${f}`));
  }
  assert.deepEqual(missing, []);
});
