/**
 * Issue 13 (13c, review): a foreign (pi) extension's tool names are known only once it started,
 * so the host checks them after each start: at the first start and on every reload. Two QuickJS
 * extensions that both register "count": one serves it, the other is refused, and a reload of
 * the refused one is refused too (it once came back with the same name as the first).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost } from "@octet/host";
import { rpiRuntime } from "@octet/rpi";

const source = (tag: string): string => `export default function (pi) {
  pi.registerTool({ name: "count", label: "count", description: "count ${tag}",
    parameters: { type: "object", properties: {} },
    execute: async () => ({ content: [{ type: "text", text: "${tag}" }] }) });
}`;

test(
  "issue 13c: a pi extension refused for a tool name another holds is " +
    "refused again on reload; one name, one owner",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "octet-foreign-names-"));
    try {
      for (const n of ["aaa", "bbb"]) {
        await mkdir(join(dir, n));
        await writeFile(join(dir, n, "index.mjs"), source(n));
        await writeFile(
          join(dir, n, "pi-extension.json"),
          JSON.stringify({
            schemaVersion: 1,
            id: n,
            runtime: "quickjs",
            entry: "./index.mjs",
            capabilities: ["tools"],
          }),
        );
      }
      const host = await ExtensionHost.start({
        extensionDirs: [dir],
        workspace: dir,
        enable: ["aaa", "bbb"],
        octetHome: join(dir, "home"),
        runtimes: [rpiRuntime()],
      });
      try {
        const ready = host
          .status()
          .filter((s) => s.state === "ready")
          .map((s) => s.name);
        assert.equal(ready.length, 1, JSON.stringify(host.status().map((s) => [s.name, s.state, s.lastError])));
        const refused = host.status().find((s) => s.state !== "ready")!;
        assert.match(
          refused.lastError ?? refused.parkedReason ?? "",
          /tool "count" is already provided by extension "(aaa|bbb)"/,
        );
        await assert.rejects(
          host.reload(refused.name),
          new RegExp(
            String.raw`reload of "(aaa|bbb)" refused: tool "count" is already provided by extension ` +
              String.raw`"(aaa|bbb)"; the extension stays down`,
          ),
        );
        assert.deepEqual(
          host.tools().map((t) => `${t.extension}/${t.name}`),
          [`${ready[0]}/count`],
        );
        assert.equal((await host.callTool("count", {})).text, ready[0]);
      } finally {
        await host.shutdown();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
