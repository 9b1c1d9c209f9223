/**
 * What importing the SDK costs an extension's start: the Node built-ins only a rarely used API
 * needs (node:crypto for artifacts, node:tty and node:fs's streams for the terminal) are loaded at
 * that API's first use, not at import (together about 13 ms of a fresh process). Checked in a
 * fresh process, from Node's own list of the built-ins it has loaded, and checked against the APIs
 * still loading them when called.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const BUNDLE = new URL("../bundle/index.js", import.meta.url).href;
const LAZY = ["NativeModule crypto", "NativeModule tty", "NativeModule internal/fs/streams"];

function loadedAfter(script: string): string[] {
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    cwd: fileURLToPath(new URL(".", import.meta.url)),
  });
  assert.equal(run.status, 0, run.stderr);
  // stderr: an Extension owns stdout (the wire).
  return JSON.parse(run.stderr.trim().split("\n").pop()!) as string[];
}

test("importing the SDK loads neither node:crypto nor node:tty nor fs streams", () => {
  const loaded = loadedAfter(
    `const sdk = await import(${JSON.stringify(BUNDLE)});
     new sdk.Extension({ apiVersion: "0.4" });
     process.stderr.write(JSON.stringify(process.moduleLoadList) + "\\n");`,
  );
  for (const name of LAZY) assert.ok(!loaded.includes(name), `${name} was loaded at import`);
});

test("openTerminal loads node:tty when called: the lazy load reaches the real module", () => {
  const loaded = loadedAfter(
    `const sdk = await import(${JSON.stringify(BUNDLE)});
     let message = "";
     try { sdk.openTerminal({ OCTET_TTY: "/nonexistent/tty" }); } catch (err) { message = err.code; }
     if (message !== "ENOENT") throw new Error("openTerminal did not try to open the device: " + message);
     process.stderr.write(JSON.stringify(process.moduleLoadList) + "\\n");`,
  );
  assert.ok(loaded.includes("NativeModule tty"), "node:tty loaded by openTerminal");
});
