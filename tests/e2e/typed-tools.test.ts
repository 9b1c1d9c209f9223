/**
 * The typed-tools example through the real host: generated schemas in the catalog, typed success
 * as structured_content checked against output_schema, -32602 for arguments that do not match,
 * an error with diagnostics admitted by the host without a structured value, and invalid typed
 * output never reaching the caller as a success.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ExtensionHost, type HostEvent } from "@octet/host";
import { EXAMPLES, processesMentioning } from "./helpers.js";

async function withTyped(body: (host: ExtensionHost, events: HostEvent[]) => Promise<void>): Promise<void> {
  const events: HostEvent[] = [];
  const host = await ExtensionHost.start({
    workspace: EXAMPLES,
    extensionDirs: [EXAMPLES],
    enable: ["typed-tools"],
    onEvent: (e) => events.push(e),
  });
  try {
    assert.equal(host.status().find((s) => s.name === "typed-tools")?.state, "ready");
    await body(host, events);
  } finally {
    await host.shutdown();
  }
  assert.deepEqual(processesMentioning("examples/typed-tools"), []);
}

test(
  "PY-12, PY-16, PY-20: a typed tool through the host: closed generated schemas, defaults filled in, structured " +
    "output checked, mismatched arguments refused",
  async () => {
    await withTyped(async (host) => {
      const simulate = host.tools().find((t) => t.name === "simulate");
      assert.deepEqual(simulate?.parameters["required"], ["circuit", "probes"]);
      assert.equal(simulate?.parameters["additionalProperties"], false);
      assert.deepEqual(simulate?.output_schema?.["required"], ["probes", "volts", "steps"]);
      const r = await host.callTool("simulate", { circuit: "rc", probes: ["in", "out"] });
      assert.equal(r.is_error, false, r.text);
      assert.equal(r.text, "Simulated rc (dc) for 100 steps.");
      assert.deepEqual(r.structured_content, { probes: ["in", "out"], volts: [0.5, 1], steps: 100 });
      // The host's argument validator refuses them before the call is sent (issue 13.2); the SDK's
      // own refusal of the same arguments is covered by sdk/typescript/test/typed-tool.test.ts.
      await assert.rejects(
        host.callTool("simulate", { circuit: "rc", probes: [], steps: 0 }),
        (e: Error & { code?: number }) => e.code === -32602 && /arguments\.steps: must be >= 1/.test(e.message),
      );
      await assert.rejects(
        host.callTool("simulate", { circuit: "rc", probes: [], volts: 3 }),
        (e: Error & { code?: number }) =>
          e.code === -32602 && /arguments: must not have property "volts"/.test(e.message),
      );
    });
  },
);

test(
  "PY-22, DIAG-01, DIAG-03: an error TypedResult without a value reaches the caller with its diagnostics and their " +
    "projection",
  async () => {
    await withTyped(async (host) => {
      const r = await host.callTool("simulate", { circuit: "diverge", probes: [] });
      assert.equal(r.is_error, true);
      assert.equal(r.structured_content, undefined);
      assert.equal(
        r.text,
        "Simulation failed.\nDiagnostics (1):\n- error solver.nonconvergent: Operating point did not converge. " +
          "[circuits/diverge.cir bytes 0-12]",
      );
      assert.deepEqual(r.metadata, {
        octet_diagnostics_v1: [
          {
            severity: "error",
            code: "solver.nonconvergent",
            message: "Operating point did not converge.",
            primary: { source: { kind: "workspace", path: "circuits/diverge.cir" }, span: { start: 0, end: 12 } },
          },
        ],
      });
    });
  },
);

test(
  "PY-20: typed output that does not match its schema is a tool error with an invalid_output diagnostic, never a " +
    "success",
  async () => {
    await withTyped(async (host, events) => {
      const r = await host.callTool("broken", {});
      assert.equal(r.is_error, true);
      assert.equal(r.structured_content, undefined);
      assert.match(
        r.text,
        new RegExp(
          String.raw`^Tool broken produced invalid output\.\nDiagnostics \(1\):\n- error ` +
            String.raw`octet\.typed\.invalid_output: output\.count: expected an integer, got 2\.5$`,
        ),
      );
      assert.equal(
        events.some((e) => e.type === "diagnostic" && /invalid tool\/call result/.test(JSON.stringify(e))),
        false,
        "the SDK's error is a valid result: the host had nothing to refuse",
      );
    });
  },
);
