import { test } from "node:test";
import assert from "node:assert/strict";
import { WireError, bounds, type RequestMessage } from "@octet/protocol";
import { ChildInbox, type ConfirmService, type InboxContext } from "../src/generation/child-inbox.js";
import { parseManifest } from "../src/manifest/manifest.js";

function manifest() {
  const r = parseManifest(
    `name = "x"\nversion = "1"\napi_version = "0.2"\n[entrypoint]\ncommand = "x"\n[contributes]\ntools = ` +
      `["t"]\nconfirmations = true\ncontext = true\n`,
    "/x/extension.toml",
  );
  assert.ok(r.ok);
  return r.manifest;
}

function inbox(
  confirm?: ConfirmService,
  events: unknown[] = [],
  now: () => number = Date.now,
): { inbox: ChildInbox; diagnostics: string[] } {
  const diagnostics: string[] = [];
  const parent = new AbortController();
  const ctx: InboxContext = {
    name: "x",
    api: "0.2",
    generation: 1,
    manifest: manifest(),
    confirm,
    input: undefined,
    accepting: () => true,
    activeRequest: (id) =>
      id === 7 ? { method: "tool/call", signal: parent.signal, takeApproval: () => false } : undefined,
    generationSignal: new AbortController().signal,
    emit: (e) => void events.push(e),
    now,
    diagnose: (_level, message) => void diagnostics.push(message),
  };
  return { inbox: new ChildInbox(ctx), diagnostics };
}

const req = (id: number | string, method: string, params: unknown = {}): RequestMessage => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

test(
  "REV-05: 65,536 distinct child ids are accepted in a generation, the next one is refused " + "with -32002",
  async () => {
    const { inbox: box } = inbox();
    for (let i = 0; i < bounds.MAX_CHILD_IDS_PER_GENERATION; i++) {
      await assert.rejects(box.request(req(i, "made/up")), (e: unknown) => e instanceof WireError && e.code === -32601);
    }
    await assert.rejects(
      box.request(req("one-more", "made/up")),
      (e: unknown) => e instanceof WireError && e.code === -32002 && /65536 distinct ids/.test(e.message),
    );
  },
);

test("REV-03: a child id is never reused within a generation, even after it settled", async () => {
  const { inbox: box } = inbox();
  await assert.rejects(box.request(req("a", "made/up")), /unsupported_feature/);
  await assert.rejects(
    box.request(req("a", "made/up")),
    (e: unknown) => e instanceof WireError && e.code === -32600 && /already used/.test(e.message),
  );
});

test(
  "REV-09, CONF-06: identity comes from the host, never the child's JSON, and a yes is not remembered as " +
    "authority",
  async () => {
    const seen: { extension: string; prompt: string }[] = [];
    const { inbox: box } = inbox(async (r) => (seen.push({ extension: r.extension, prompt: r.prompt }), true));
    const params = {
      parent_request_id: 7,
      prompt: "Push?",
      destructive: false,
      default: false,
      extension: "someone-else",
      resource_owner: { session_id: "forged", extension_instance_id: "forged", process_generation: 99 },
    };
    assert.deepEqual(await box.request(req("c1", "confirmation/request", params)), { confirmed: true });
    assert.deepEqual(await box.request(req("c2", "confirmation/request", params)), { confirmed: true });
    assert.deepEqual(
      seen,
      [
        { extension: "x", prompt: "Push?" },
        { extension: "x", prompt: "Push?" },
      ],
      "asked twice: a confirmation grants nothing that is kept",
    );
    await assert.rejects(
      box.request(req("c3", "confirmation/request", { ...params, parent_request_id: 8 })),
      (e: unknown) => e instanceof WireError && e.code === -32002,
    );
  },
);

test("CTX-06, CTX-07: context contributions are rate-limited and one generation keeps at most 32 labels", () => {
  const events: unknown[] = [];
  const { inbox: box, diagnostics } = inbox(undefined, events);
  const push = (label: string): void =>
    box.notification({ jsonrpc: "2.0", method: "context/contribution", params: { label, content: "c" } });
  for (let i = 0; i < 15; i++) push(`burst-${i}`);
  assert.equal(events.length, 10, "10 per second pass");
  assert.equal(diagnostics.filter((d) => /rate over 10 per second/.test(d)).length, 1, "one diagnostic for the excess");
});

test("CTX-06: the 33rd distinct label of a generation is dropped with a diagnostic naming the limit", () => {
  const events: unknown[] = [];
  let clock = 0;
  const { inbox: box, diagnostics } = inbox(undefined, events, () => clock);
  const push = (label: string): void =>
    box.notification({ jsonrpc: "2.0", method: "context/contribution", params: { label, content: "c" } });
  for (let i = 0; i < 33; i++) {
    if (i % 10 === 0) clock += 1_000; // the next rate window
    push(`label-${i}`);
  }
  assert.equal(events.length, 32);
  assert.ok(
    diagnostics.some((d) => /already uses 32 labels, the limit is 32/.test(d)),
    diagnostics.join("\n"),
  );
  push("label-0");
  assert.equal(events.length, 33, "an existing label may still be replaced");
});
