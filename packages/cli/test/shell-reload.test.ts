import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ExtensionHost } from "@octet/host";
import { rebuildHost } from "../src/shell-reload.js";

const EXAMPLES = fileURLToPath(new URL("../../../../examples", import.meta.url));
const options = { workspace: EXAMPLES, extensionDirs: [EXAMPLES], enable: ["hello-world"] };

test(
  "issue 13.8 (review): /reload interrupted by Ctrl-C while the new host starts says nothing runs, never " +
    "'rebuilt'",
  async () => {
    const old = await ExtensionHost.start(options);
    assert.equal(old.status().find((s) => s.name === "hello-world")?.state, "ready");
    const interrupted = new AbortController();
    const { host, message } = await rebuildHost(
      old,
      () => {
        interrupted.abort(new Error("interrupted"));
        return ExtensionHost.start({ ...options, signal: interrupted.signal });
      },
      ["hello-world"],
      interrupted.signal,
    );
    try {
      assert.match(message, /^\/reload interrupted: no extension is running; type \/reload to start them again/);
      assert.doesNotMatch(message, /rebuilt/);
    } finally {
      await host.shutdown();
    }
  },
);

test(
  "issue 13.8 (review): a /reload whose new host fails to start says the old one was stopped and " + "nothing runs",
  async () => {
    const old = await ExtensionHost.start(options);
    await assert.rejects(
      rebuildHost(old, () => Promise.reject(new Error("boom")), ["hello-world"]),
      new RegExp(
        /\/reload: the host was stopped and the new one did not start \(boom\); /.source +
          /no extension is running; type \/reload to try again/.source,
      ),
    );
    assert.deepEqual(old.tools(), [], "the old host was stopped");
  },
);
