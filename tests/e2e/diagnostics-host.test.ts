/**
 * The host's own check of typed diagnostics against real processes (fake-ext-v2.mjs answers what
 * a test asks): the shared profile is validated again (DIAG-04), every artifact a diagnostic
 * names must resolve for the generation's owner, blob references are refused (bulk objects are
 * not implemented), and an error result may carry no artifact or blob reference (DIAG-05).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { ToolCallOutcome } from "@octet/host";
import { REQUIRED, json, withRuntime, type Runtime } from "./runtime-helpers.js";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
const WITH_ARTIFACTS = { features: [...REQUIRED, "request_progress", "artifacts"] };
const text = (t: string): { type: "text"; text: string } => ({ type: "text", text: t });
const BLOB = {
  $blob: "tok-1",
  bytes: 10,
  digest: { algorithm: "sha256", value: "ab".repeat(32) },
  media_type: "text/plain",
};
const ws = { kind: "workspace", path: "src/a.py", revision: "r1" };

async function publishPng(rt: Runtime): Promise<string> {
  const params = {
    parent_request_id: "self",
    mime_type: "image/png",
    size: PNG.length,
    sha256: createHash("sha256").update(PNG).digest("hex"),
    data: { encoding: "base64", data: PNG.toString("base64") },
  };
  const answer = json(await rt.host.callTool("ask", { method: "artifact/publish", params })) as {
    result?: { artifact_id: string };
  };
  assert.ok(answer.result, JSON.stringify(answer));
  return answer.result.artifact_id;
}

function withDiagnostics(
  rt: Runtime,
  diagnostics: unknown,
  isError = false,
  tool = "result",
): Promise<ToolCallOutcome> {
  return rt.host.callTool(tool, {
    result: {
      content: [text(isError ? "it failed" : "done")],
      is_error: isError,
      metadata: { octet_diagnostics_v1: diagnostics },
    },
  });
}

function assertRefused(outcome: ToolCallOutcome, pattern: RegExp, tool = "result"): void {
  assert.equal(outcome.is_error, true, outcome.text);
  assert.match(outcome.text, new RegExp(`^Tool ${tool} returned an invalid result: `));
  assert.match(outcome.text, pattern);
  assert.equal(outcome.metadata, undefined, "nothing of the refused result reaches the caller");
}

test(
  "DIAG-04: the host validates the diagnostics profile itself; a malformed profile makes the result a tool error " +
    "with the reason",
  async () => {
    await withRuntime([{ name: "diag" }], {}, async (rt) => {
      const good = [
        {
          severity: "warning",
          code: "lint.x",
          message: "Careful.",
          primary: { source: ws, span: { start: 0, end: 2 } },
          fixes: [
            { title: "Fix it", edits: [{ location: { source: ws, span: { start: 0, end: 2 } }, new_text: "ok" }] },
          ],
        },
      ];
      const ok = await withDiagnostics(rt, good);
      assert.equal(ok.is_error, false, ok.text);
      assert.deepEqual(ok.metadata, { octet_diagnostics_v1: good });
      const before = rt.diagnostics().length;
      assertRefused(
        await withDiagnostics(rt, [{ severity: "fatal", code: "c", message: "m" }]),
        /invalid diagnostics: metadata\.octet_diagnostics_v1\[0\]\.severity/,
      );
      assert.ok(
        rt
          .diagnostics()
          .slice(before)
          .some((m) => /invalid tool\/call result for result: invalid diagnostics/.test(m)),
      );
      // The Python SDK's former shapes are not the profile.
      assertRefused(
        await withDiagnostics(rt, [
          {
            severity: "info",
            code: "c",
            message: "m",
            attachments: [{ source: { kind: "artifact", artifact_id: "x" }, title: "t" }],
          },
        ]),
        /attachments\[0\]\.(title|label)/,
      );
      assertRefused(
        await withDiagnostics(rt, [
          {
            severity: "info",
            code: "c",
            message: "m",
            fixes: [{ title: "t", edits: [{ source: ws, span: { start: 0, end: 1 }, new_text: "" }] }],
          },
        ]),
        /edits\[0\]\./,
      );
      assertRefused(await withDiagnostics(rt, "not a list"), /invalid diagnostics/);
      assertRefused(
        await withDiagnostics(
          rt,
          Array.from({ length: 33 }, () => ({ severity: "info", code: "c", message: "m" })),
        ),
        /invalid diagnostics/,
      );
      const nulled = await withDiagnostics(rt, null);
      assert.equal(nulled.is_error, false, "a null reserved member reads as absent");
      assert.equal(rt.host.status()[0]!.state, "ready", "invalid results do not harm the generation");
    });
  },
);

test(
  "DIAG-04: artifact references resolve only for the owner and generation that published them; blob references are " +
    "refused (no bulk objects)",
  async () => {
    await withRuntime(
      [
        { name: "a", config: WITH_ARTIFACTS, tools: ["ask", "result"] },
        { name: "b", config: WITH_ARTIFACTS, tools: ["typed"] },
      ],
      { services: { artifacts: true } },
      async (rt) => {
        const id = await publishPng(rt);
        const art = { kind: "artifact", artifact_id: id };
        const full = [
          {
            severity: "error",
            code: "render.fail",
            message: "See the picture.",
            primary: { source: art },
            related: [{ location: { source: art, span: { start: 0, end: 4 } }, message: "Here." }],
            attachments: [{ label: "picture", source: art }],
          },
        ];
        const ok = await withDiagnostics(rt, full);
        assert.equal(ok.is_error, false, ok.text);
        assert.deepEqual(ok.metadata, { octet_diagnostics_v1: full });
        assertRefused(
          await withDiagnostics(rt, [
            {
              severity: "info",
              code: "c",
              message: "m",
              attachments: [{ label: "made up", source: { kind: "artifact", artifact_id: "art_made_up" } }],
            },
          ]),
          /metadata\.octet_diagnostics_v1\[0\]\.attachments\[0\]\.source: unknown artifact "art_made_up"/,
        );
        assertRefused(
          await withDiagnostics(rt, [
            {
              severity: "info",
              code: "c",
              message: "m",
              primary: { source: { kind: "artifact", artifact_id: "art_nope" } },
            },
          ]),
          /primary\.source: unknown artifact/,
        );
        assertRefused(
          await withDiagnostics(rt, [
            {
              severity: "info",
              code: "c",
              message: "m",
              attachments: [{ label: "dump", source: { kind: "blob", blob: BLOB } }],
            },
          ]),
          /attachments\[0\]\.source: blob references are not supported: bulk objects .* are not implemented/,
        );
        assertRefused(
          await withDiagnostics(rt, [
            {
              severity: "info",
              code: "c",
              message: "m",
              related: [{ location: { source: { kind: "blob", blob: BLOB } }, message: "r" }],
            },
          ]),
          /related\[0\]\.location\.source: blob references are not supported/,
        );
        // Another extension's process names a's artifact: not its own, so unknown.
        const foreign = await rt.host.callTool("typed", {
          result: {
            content: [text("stolen")],
            structured_content: { count: 1 },
            metadata: {
              octet_diagnostics_v1: [
                { severity: "info", code: "c", message: "m", attachments: [{ label: "x", source: art }] },
              ],
            },
          },
        });
        assertRefused(foreign, /unknown artifact/, "typed");
      },
    );
  },
);

test("DIAG-04: without an artifacts service every artifact reference is refused", async () => {
  await withRuntime([{ name: "plain" }], {}, async (rt) => {
    assertRefused(
      await withDiagnostics(rt, [
        { severity: "info", code: "c", message: "m", primary: { source: { kind: "artifact", artifact_id: "art_1" } } },
      ]),
      /no artifacts service is bound/,
    );
  });
});

test(
  "DIAG-05: an error result cannot publish artifact or blob references through diagnostics; workspace locations and " +
    "fixes stay suggestions",
  async () => {
    await withRuntime([{ name: "a", config: WITH_ARTIFACTS }], { services: { artifacts: true } }, async (rt) => {
      const id = await publishPng(rt);
      const art = { kind: "artifact", artifact_id: id };
      // Even an artifact the owner did publish: a failed operation publishes no references.
      assertRefused(
        await withDiagnostics(
          rt,
          [{ severity: "error", code: "c", message: "m", attachments: [{ label: "p", source: art }] }],
          true,
        ),
        /attachments\[0\]\.source: an error result cannot publish artifact references through diagnostics/,
      );
      assertRefused(
        await withDiagnostics(
          rt,
          [{ severity: "error", code: "c", message: "m", primary: { source: { kind: "blob", blob: BLOB } } }],
          true,
        ),
        /cannot publish blob references/,
      );
      // Workspace-only diagnostics with a suggested fix pass on an error: the fix is data, not an edit.
      const plain = [
        {
          severity: "error",
          code: "c",
          message: "m",
          primary: { source: ws, span: { start: 0, end: 1 } },
          fixes: [{ title: "t", edits: [{ location: { source: ws, span: { start: 0, end: 1 } }, new_text: "x" }] }],
        },
      ];
      const failed = await withDiagnostics(rt, plain, true);
      assert.equal(failed.is_error, true);
      assert.equal(failed.text, "it failed");
      assert.deepEqual(failed.metadata, { octet_diagnostics_v1: plain });
    });
  },
);
