// Which invocation a UI request or an action is made for: the host needs it to put a dialog under
// the right call when several run (request.parentId).
import { test } from "node:test";
import assert from "node:assert/strict";
import { loaded, invoke, ext } from "./helpers/quickjs-harness.js";

const command = (id: string, name: string): object => invoke(id, { kind: "command", name, arguments: "" });

test(
  "QJS-13: a ctx.ui request carries the id of the invocation whose ctx made it; a pi-level action carries " + "none",
  async () => {
    const { h } = await loaded(
      ext(
        `
    pi.registerCommand("ask", { handler: async (_a, ctx) => { ctx.ui.notify("hi", "info"); await ` +
          `pi.setSessionName("n"); return "done"; } });`,
      ),
      { capabilities: ["commands", "ui", "session_actions"], uiCapabilities: ["notify"] },
    );
    try {
      h.send(command("req-7", "ask"));
      h.send(command("req-8", "ask"));
      const frames = h.take() as { type: string; id: string; request?: { kind: string } }[];
      const byParent = new Map<unknown, string[]>();
      for (const f of frames.filter((x) => x.type === "request")) {
        const parent = h.parents.get(f.id);
        byParent.set(parent, [...(byParent.get(parent) ?? []), f.request!.kind].sort());
      }
      // Each command's notify names that command, whatever order they interleave in; pi.setSessionName
      // belongs to the extension, not to a call, so its frames name no parent.
      assert.deepEqual(
        [...byParent.entries()].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
        [
          ["req-7", ["ui"]],
          ["req-8", ["ui"]],
          [undefined, ["action", "action"]],
        ],
      );
    } finally {
      h.dispose();
    }
  },
);
