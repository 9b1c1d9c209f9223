/**
 * ext.presentation.update() through a real child process: ownership from the active request, an
 * explicit owner, or process scope; local refusals (manifest gate, API 0.1, invalid snapshots)
 * that send nothing.
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { validatePresentationUpdate } from "@octet/protocol";
import { CONTEXT, WireHost, killAll, offer, resultOf, type Frame } from "./harness.js";

afterEach(killAll);

const OWNER = { session_id: "s-1", extension_instance_id: "i-1", process_generation: 1 };

async function start(api: "0.1" | "0.2", presentation: boolean): Promise<WireHost> {
  const host = new WireHost("presenting", [api]);
  const params: Record<string, unknown> = {
    api_version: api,
    octet_version: "0.1.0",
    extension: {
      name: "sdk-fixture",
      version: "0.0.1",
      manifest_path: "/tmp/octet-sdk-test/extension.toml",
      source: "explicit",
    },
    workspace: CONTEXT.workspace,
    capabilities: { filesystem: "none", process: false, network: false },
    contributes: {
      tools: ["present", "later"],
      commands: ["workers"],
      hooks: [],
      ui: [],
      context: false,
      tool_renderers: [],
      notifications: false,
      confirmations: false,
      ...(api === "0.1" ? {} : { presentation, menu: false }),
    },
    host: { session_id: null, session_name: null, model: "test-model", reasoning: null, active_skills: [] },
  };
  if (api !== "0.1") params["protocol"] = offer(api, ["request_progress"]);
  resultOf(await host.request("initialize", params));
  return host;
}

const text = (frame: Frame): string => {
  const content = (resultOf(frame) as { content: unknown }).content;
  return typeof content === "string" ? content : (content as { text: string }[]).map((p) => p.text).join("\n");
};
const isUpdate = (f: Frame): boolean => f["method"] === "presentation/update";

async function present(host: WireHost, snapshot: unknown, options?: unknown): Promise<{ id: number; text: string }> {
  const id = host.sendRequest("tool/call", {
    name: "present",
    arguments: { snapshot, ...(options ? { options } : {}) },
    context: CONTEXT,
  });
  return { id, text: text(await host.response(id)) };
}

test(
  "PRES-01, PRES-02: inside a handler the snapshot is sent as a notification correlated to the call, with " +
    "defaults filled in",
  async () => {
    const host = await start("0.2", true);
    const { id, text: answer } = await present(host, {
      revision: 0,
      actions: [{ id: "x", label: "X", command: "workers" }],
    });
    assert.equal(answer, "sent");
    const frame = host.frames.find(isUpdate)!;
    assert.equal(frame["id"], undefined, "a notification");
    assert.deepEqual(frame["params"], {
      parent_request_id: id,
      snapshot: {
        revision: 0,
        activities: [],
        actions: [{ id: "x", label: "X", command: "workers", arguments: [], destructive: false }],
      },
    });
    assert.ok(validatePresentationUpdate(frame["params"], { declaredCommands: ["workers"] }).ok);
  },
);

test(
  "PRES-03, PRES-05: an explicit owner is sent as resource_owner; after the call settled the snapshot is " +
    "process-scoped",
  async () => {
    const host = await start("0.2", true);
    assert.equal((await present(host, { revision: 1 }, { owner: OWNER })).text, "sent");
    assert.deepEqual(host.frames.filter(isUpdate)[0]?.["params"], {
      resource_owner: OWNER,
      snapshot: { revision: 1, activities: [], actions: [] },
    });
    const id = host.sendRequest("tool/call", {
      name: "later",
      arguments: { snapshot: { revision: 2 } },
      context: CONTEXT,
    });
    assert.equal(text(await host.response(id)), "scheduled");
    const late = await host.waitForFrame(
      (f) => isUpdate(f) && (f["params"] as { snapshot: { revision: number } }).snapshot.revision === 2,
    );
    assert.deepEqual(late["params"], { snapshot: { revision: 2, activities: [], actions: [] } });
    // Process scope cannot carry a session reference: refused before sending.
    const refused = await present(
      host,
      {
        revision: 3,
        activities: [{ id: "a", kind: "k", state: "running", references: [{ kind: "session", id: "s" }] }],
      },
      { scope: "process" },
    );
    assert.match(refused.text, /^refused: presentation\.update\(\): .*process-scoped/);
  },
);

test(
  "PRES-01: without contributes.presentation, or on API 0.1, update() is refused locally and " + "nothing is sent",
  async () => {
    const host = await start("0.2", false);
    assert.match(
      (await present(host, { revision: 0 })).text,
      /^refused: presentation\.update\(\) needs `presentation = true` under \[contributes\]/,
    );
    const old = await start("0.1", false);
    assert.match(
      (await present(old, { revision: 0 })).text,
      /^refused: presentation\.update\(\) needs API 0\.2 or later/,
    );
    assert.equal(host.frames.filter(isUpdate).length + old.frames.filter(isUpdate).length, 0);
  },
);

test(
  "PRES-15, PRES-21: an invalid snapshot is refused locally with the validator's message naming " + "the value",
  async () => {
    const host = await start("0.2", true);
    const r = await present(host, { revision: 0, actions: [{ id: "x", label: "X", command: "rm" }] });
    assert.match(
      r.text,
      new RegExp(
        /^refused: presentation\.update\(\): snapshot\.actions\[0\]\.command: /.source +
          /"rm" is not a command this manifest declares \(declared: "workers"\)/.source,
      ),
    );
    assert.equal(host.frames.filter(isUpdate).length, 0);
  },
);
