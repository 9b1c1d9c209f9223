/**
 * The child's launch environment seen from inside a real child: cwd, the allowlist and the
 * OCTET_* variables.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { ExtensionHost } from "@octet/host";
import { makeExtensions } from "./helpers.js";

test(
  "ENV-08, ENV-05, ENV-01, ENV-03: the child runs in the workspace " + "with only allowlisted and OCTET_* variables",
  async () => {
    const { dir, cleanup } = await makeExtensions([{ name: "envdump", behaviour: "dump-env" }]);
    const parentEnv = {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      HOME: "/home/someone",
      OPENAI_API_KEY: "sk-secret",
      SSH_AUTH_SOCK: "/tmp/agent.sock",
      LC_ALL: "C.UTF-8",
      NODE_OPTIONS: "--inspect",
    };
    const host = await ExtensionHost.start({
      workspace: dir,
      extensionDirs: [dir],
      enable: ["envdump"],
      env: parentEnv,
    });
    try {
      const result = await host.callTool("echo", {});
      const { env, cwd } = JSON.parse(result.text) as { env: Record<string, string>; cwd: string };
      assert.equal(cwd, dir);
      assert.equal(env["OPENAI_API_KEY"], undefined);
      assert.equal(env["SSH_AUTH_SOCK"], undefined, "SSH_AUTH_SOCK is not passed without a declaration");
      assert.equal(env["NODE_OPTIONS"], undefined);
      assert.equal(env["HOME"], "/home/someone");
      assert.equal(env["LC_ALL"], "C.UTF-8");
      assert.equal(env["OCTET_EXTENSION_NAME"], "envdump");
      assert.equal(env["OCTET_API_VERSION"], "0.1");
      assert.equal(env["OCTET_WORKSPACE"], dir);
      assert.equal(env["OCTET_PROCESS_GENERATION"], "1");
      const scratch = env["OCTET_EXTENSION_SCRATCH"];
      assert.ok(scratch && existsSync(scratch), "the scratch directory exists while the generation runs");
      assert.equal(statSync(scratch).mode & 0o777, 0o700, "the scratch directory is private");
      const allowed = new Set([
        "PATH",
        "HOME",
        "LC_ALL",
        "OCTET_VERSION",
        "OCTET_API_VERSION",
        "OCTET_EXTENSION_NAME",
        "OCTET_EXTENSION_DIR",
        "OCTET_WORKSPACE",
        "OCTET_EXTENSION_SCRATCH",
        "OCTET_PROCESS_GENERATION",
      ]);
      for (const key of Object.keys(env)) assert.ok(allowed.has(key), `unexpected variable ${key} reached the child`);
      await host.shutdown();
      assert.equal(existsSync(scratch), false, "the scratch directory is removed after the generation stops");
    } finally {
      await host.shutdown();
      await cleanup();
    }
  },
);
