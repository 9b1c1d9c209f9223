/**
 * Issue 13.4 (found on a loaded machine): an extension that closes its stdin and exits while the
 * host writes to it. The write fails with EPIPE before the exit is seen; that is the end of the
 * transport, not a protocol violation, and the cause to report is the exit with its stderr.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost } from "@octet/host";

for (const tier of ["default containment", "process-group"]) {
  test(
    `issue 13.4: a start that fails with EPIPE on the host's write reports the exit and its stderr, not a ` +
      `protocol violation (${tier})`,
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "octet-start-cause-"));
      try {
        await mkdir(join(dir, "shut"));
        await writeFile(
          join(dir, "shut", "extension.toml"),
          `name = "shut"\nversion = "0.1.0"\napi_version = "0.1"\n\n[entrypoint]\ncommand = "/bin/sh"\nargs = ["-c", ` +
            `"exec 0<&-; echo 'Error: the real cause' >&2; sleep 0.3; exit 1"]\n\n[contributes]\ntools = ["z"]\n`,
        );
        const env =
          tier === "process-group" ? { ...process.env, OCTET_CONTAINMENT: "process-group" } : { ...process.env };
        const host = await ExtensionHost.start({ workspace: dir, extensionDirs: [dir], enable: ["shut"], env });
        try {
          const s = host.status().find((x) => x.name === "shut")!;
          assert.equal(s.state, "parked");
          assert.match(s.lastError ?? "", /ended: process exited with code 1; stderr: Error: the real cause/);
          assert.doesNotMatch(s.lastError ?? "", /protocol violation|EPIPE/);
        } finally {
          await host.shutdown();
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
}
