/**
 * Typed tools and diagnostics through a real child process and the raw wire: the catalog the SDK
 * sends, -32602 before the handler, invalid output as a tool error, cancellation inside a typed
 * handler, and diagnostics on an ordinary tool. Every result is also read by the host's validator.
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode, validateToolResult, type ToolDefinition } from "@octet/protocol";
import { CONTEXT, WireHost, killAll, resultOf } from "./harness.js";

afterEach(killAll);

async function started(api = "0.4"): Promise<{ host: WireHost; tools: ToolDefinition[] }> {
  const host = new WireHost("typed", [api]);
  const init = await host.initialize(api, { optional: ["request_progress"] });
  return { host, tools: (resultOf(init) as { tools: ToolDefinition[] }).tools };
}

function call(host: WireHost, name: string, args: Record<string, unknown>) {
  return host.request("tool/call", { name, arguments: args, context: CONTEXT });
}

function accepted(tools: ToolDefinition[], name: string, result: unknown): void {
  const checked = validateToolResult(
    result,
    "0.4",
    tools.find((t) => t.name === name),
  );
  assert.ok(checked.ok, checked.ok ? "" : checked.problems.join("; "));
}

test(
  "PY-11, PY-12, PY-17: a process registers typed tools beside ext.tool, sends their generated schemas, " +
    "and refuses a map at registration",
  async () => {
    const { host, tools } = await started();
    assert.deepEqual(
      tools.map((t) => t.name),
      ["echo", "solve", "wrong", "wait", "plain", "raw"],
    );
    assert.deepEqual(tools.find((t) => t.name === "echo")?.parameters["required"], ["name", "enabled", "samples"]);
    assert.equal(tools.find((t) => t.name === "echo")?.output_schema?.["additionalProperties"], false);
    await host.waitForStderr(
      'bad schema refused: typed tool "bad": input.properties.m: keyword "patternProperties": maps are not supported',
    );
    const result = resultOf(await call(host, "echo", { name: "a", enabled: true, samples: [1, 2] }));
    assert.deepEqual(result, {
      content: [{ type: "text", text: "Echoed typed record." }],
      is_error: false,
      structured_content: { name: "a", enabled: true, samples: [1, 2], note: null },
    });
    accepted(tools, "echo", result);
    assert.deepEqual(host.violations, []);
  },
);

test("PY-11: typedTool is refused on API 0.2 (typed tools are API 0.4)", async () => {
  const { host, tools } = await started("0.2");
  await host.waitForStderr('echo refused: typed tool "echo": typed tools need API 0.4 (this extension speaks API 0.2)');
  assert.deepEqual(
    tools.map((t) => t.name),
    ["plain", "raw"],
  );
});

test(
  "PY-20: arguments that do not match are answered -32602 and the handler does not run; invalid output is " +
    "a tool error with a diagnostic",
  async () => {
    const { host, tools } = await started();
    const refused = await call(host, "echo", { name: "a", enabled: 1, samples: [] });
    assert.deepEqual((refused["error"] as { code: number }).code, ErrorCode.InvalidParams);
    assert.match(
      (refused["error"] as { message: string }).message,
      /invalid arguments for tool "echo": arguments\.enabled: expected a boolean, got 1/,
    );
    const wrong = resultOf(await call(host, "wrong", {})) as {
      is_error: boolean;
      metadata: { octet_diagnostics_v1: { code: string }[] };
    };
    assert.equal(wrong.is_error, true);
    assert.equal(wrong.metadata.octet_diagnostics_v1[0]!.code, "octet.typed.invalid_output");
    accepted(tools, "wrong", wrong);
    await host.waitForStderr(
      'typed tool "wrong" produced invalid output: output.n: expected a finite integer, got "three"',
    );
  },
);

test(
  "PY-21: a typed handler sees host cancellation through ctx.signal and ext.cancellation, and the call is " +
    "answered -32800",
  async () => {
    const { host } = await started();
    const id = host.sendRequest("tool/call", { name: "wait", arguments: {}, context: CONTEXT });
    await host.waitForFrame((f) => f["method"] === "$/progress");
    host.notify("$/cancelRequest", { id });
    const answer = await host.response(id);
    assert.equal((answer["error"] as { code: number }).code, ErrorCode.RequestCancelled);
  },
);

test(
  "PY-22, DIAG-01, DIAG-03: an error TypedResult without a value carries metadata.octet_diagnostics_v1 and " +
    "its projection",
  async () => {
    const { host, tools } = await started();
    const result = resultOf(await call(host, "solve", { fail: true }));
    assert.deepEqual(result, {
      content: [
        { type: "text", text: "Validation failed." },
        {
          type: "text",
          text:
            "Diagnostics (1):\n- error solver.nonconvergent: Operating point did not converge. " +
            "[src/model.cir@r1 bytes 10-20]",
        },
      ],
      is_error: true,
      metadata: {
        octet_diagnostics_v1: [
          {
            severity: "error",
            code: "solver.nonconvergent",
            message: "Operating point did not converge.",
            primary: {
              source: { kind: "workspace", path: "src/model.cir", revision: "r1" },
              span: { start: 10, end: 20 },
            },
          },
        ],
      },
    });
    accepted(tools, "solve", result);
    assert.deepEqual(
      (resultOf(await call(host, "solve", { fail: false })) as { structured_content: unknown }).structured_content,
      { x: 1.5 },
    );
  },
);

test(
  "PY-23, PY-24: ext.tool results take diagnostics through withDiagnostics, and malformed raw reserved " +
    "metadata is rejected",
  async () => {
    const { host, tools } = await started();
    const plain = resultOf(await call(host, "plain", {})) as { content: { text: string }[]; metadata: unknown };
    assert.deepEqual(plain.metadata, {
      octet_diagnostics_v1: [
        {
          severity: "warning",
          code: "lint.unused",
          message: "x is unused",
          primary: { source: { kind: "workspace", path: "a.ts" } },
        },
      ],
    });
    assert.deepEqual(
      plain.content.map((p) => p.text),
      ["Checked 3 files.", "Diagnostics (1):\n- warning lint.unused: x is unused [a.ts]"],
    );
    accepted(tools, "plain", plain);
    const raw = resultOf(await call(host, "raw", {})) as {
      is_error: boolean;
      content: { text: string }[];
      metadata?: unknown;
    };
    assert.equal(raw.is_error, true);
    assert.match(
      raw.content[0]!.text,
      new RegExp(
        /invalid metadata\.octet_diagnostics_v1: /.source +
          /metadata\.octet_diagnostics_v1\[0\]\.message: missing; expected a string/.source,
      ),
    );
    assert.equal(raw.metadata, undefined, "the malformed profile is never sent");
  },
);
