/**
 * initialize over an in-memory child (issue 14.3): the handshake refuses an answer it cannot
 * believe, and a generation whose handshake fails ends crashed with its child killed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode, OctetError } from "@octet/protocol";
import { Connection } from "../../src/generation/connection.js";
import { GenerationCatalog } from "../../src/generation/catalog.js";
import { handshake, type HandshakeOptions } from "../../src/generation/handshake.js";
import { parseManifest } from "../../src/manifest/manifest.js";
import { FakeChild } from "./fake-child.js";
import { harness, initializeResult, manifestToml } from "./harness.js";

interface Setup {
  child: FakeChild;
  run: Promise<unknown>;
  catalog: GenerationCatalog;
}

function setup(api: "0.1" | "0.2" | "0.4", timeoutMs = 5_000): Setup {
  const parsed = parseManifest(manifestToml(api), "/fake/extension.toml");
  if (!parsed.ok) throw new Error("bad manifest");
  const child = new FakeChild();
  const ended = new AbortController();
  const conn = new Connection({
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    inbox: { request: async () => null, notification: () => undefined, cancel: () => undefined },
    childCancels: api !== "0.1",
    progress: () => false,
    onStderr: () => undefined,
    onViolation: (m) => assert.fail(m),
    onTransportEnded: () => undefined,
    diagnose: () => undefined,
    ended: ended.signal,
  });
  const catalog = new GenerationCatalog();
  const o: HandshakeOptions = {
    manifest: parsed.manifest,
    manifestPath: "/fake/extension.toml",
    source: "explicit",
    workspace: "/tmp",
    host: { session_id: null, session_name: null, model: null, reasoning: null, active_skills: [] },
    optional: [],
    declared: null,
    timeoutMs,
    catalog,
  };
  return { child, run: handshake(conn.peer, o), catalog };
}

async function refusal(run: Promise<unknown>): Promise<OctetError> {
  const err = await run.then(
    () => assert.fail("the handshake accepted"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof OctetError, String(err));
  return err;
}

test(
  "INIT-02: the handshake sends initialize for the manifest and accepts a valid answer into " + "the catalog",
  async () => {
    const { child, run, catalog } = setup("0.2");
    const init = await child.next("initialize");
    assert.equal(init.params?.["api_version"], "0.2");
    assert.deepEqual((init.params?.["contributes"] as { tools: string[] } | undefined)?.tools, ["echo"]);
    child.reply(init, initializeResult("0.2"));
    const accepted = (await run) as { features: string[] };
    assert.deepEqual(accepted.features, ["request_cancellation", "content_parts"]);
    assert.deepEqual(
      catalog.tools.map((t) => t.name),
      ["echo"],
    );
  },
);

test("issue 14.3: the handshake refuses an answer with another api_version, naming the member", async () => {
  const { child, run, catalog } = setup("0.1");
  child.reply(await child.next("initialize"), { ...initializeResult("0.1"), api_version: "0.2" });
  const err = await refusal(run);
  assert.equal(err.code, "initialize_failed");
  const why = /^initialize response rejected: .*api_version.*"0\.2" does not equal the manifest-selected "0\.1"/;
  assert.match(err.message, why);
  assert.deepEqual(catalog.tools, [], "nothing of a refused answer is kept");
});

test(
  "issue 14.3: the handshake refuses a tool the manifest did not declare and a selection without the " +
    "required features",
  async () => {
    const a = setup("0.1");
    const tools = [{ name: "other", description: "x", parameters: { type: "object", properties: {} } }];
    a.child.reply(await a.child.next("initialize"), { api_version: "0.1", tools, commands: [] });
    assert.match((await refusal(a.run)).message, /initialize response rejected: .*other/);
    const b = setup("0.2");
    const result = initializeResult("0.2");
    result["protocol"] = { version: "0.2", features: ["content_parts"], limits: { max_concurrent_requests: 1 } };
    b.child.reply(await b.child.next("initialize"), result);
    assert.match((await refusal(b.run)).message, /protocol\.features.*missing required "request_cancellation"/);
  },
);

test("issue 14.3: an error answer is a refusal by the extension, silence an initialize_timeout", async () => {
  const a = setup("0.1");
  const init = await a.child.next("initialize");
  a.child.send({ id: init.id, error: { code: ErrorCode.InternalError, message: "cannot start" } });
  const refused = await refusal(a.run);
  assert.equal(refused.code, "initialize_failed");
  assert.equal(refused.message, "initialize was refused by the extension: cannot start (code -32603)");
  const b = setup("0.1", 30);
  const silent = await refusal(b.run);
  assert.equal(silent.code, "initialize_timeout");
  assert.equal(silent.message, "no initialize response within 30 ms");
});

test(
  "INIT-01: a generation whose initialize answer is refused ends crashed, its child killed, the " + "reason kept",
  async () => {
    const h = harness("0.2");
    const start = h.g.start();
    h.child.reply(await h.child.next("initialize"), { ...initializeResult("0.2"), tools: "nope" });
    const err = await start.then(
      () => assert.fail("started"),
      (e: unknown) => e as OctetError,
    );
    assert.equal(err.code, "initialize_failed");
    assert.equal(h.g.state, "crashed");
    assert.match(h.g.lastError ?? "", /^initialize response rejected: /);
    assert.deepEqual(h.child.kills, [{ running: true }]);
    await assert.rejects(h.g.request("tool/call", {}, { timeoutMs: 100 }), /is crashed, not ready/);
  },
);
