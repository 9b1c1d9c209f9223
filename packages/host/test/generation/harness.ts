/**
 * A Generation over a FakeChild: a real manifest, the real connection, handshake and stop ladder,
 * only the child injected. The test answers initialize itself (answerInitialize) or refuses it.
 */
import assert from "node:assert/strict";
import type { ApiVersion } from "@octet/protocol";
import { Generation } from "../../src/generation/generation.js";
import type { HostEvent } from "../../src/events.js";
import { parseManifest } from "../../src/manifest/manifest.js";
import type { ChildLauncher } from "../../src/generation/child.js";
import { FakeChild, launcherOf, type Frame } from "./fake-child.js";
import { BARE_HOST, bindModules } from "../../src/modules/registry.js";

export interface Harness {
  g: Generation;
  child: FakeChild;
  events: HostEvent[];
  /** The diagnostics emitted so far, as "level: message". */
  diagnostics(): string[];
}

export function manifestToml(api: ApiVersion, tools: readonly string[] = ["echo"]): string {
  return [
    'name = "fake"',
    'version = "0.1.0"',
    `api_version = "${api}"`,
    "[entrypoint]",
    'command = "/bin/true"',
    "[contributes]",
    `tools = [${tools.map((t) => JSON.stringify(t)).join(", ")}]`,
    "",
  ].join("\n");
}

export interface HarnessOptions {
  child?: FakeChild;
  launch?: ChildLauncher;
  initializeTimeoutMs?: number;
}

export function harness(api: ApiVersion, o: HarnessOptions = {}): Harness {
  const parsed = parseManifest(manifestToml(api), "/fake/extension.toml");
  if (!parsed.ok) assert.fail(parsed.errors.map((e) => e.message).join("\n"));
  const child = o.child ?? new FakeChild();
  const events: HostEvent[] = [];
  const g = new Generation({
    manifest: parsed.manifest,
    manifestPath: "/fake/extension.toml",
    extensionDir: "/fake",
    source: "explicit",
    workspace: "/tmp",
    modules: bindModules({}, BARE_HOST),
    number: 1,
    instanceId: "i-1",
    host: { session_id: null, session_name: null, model: null, reasoning: null, active_skills: [] },
    parentEnv: {},
    emit: (event) => events.push(event),
    launch: o.launch ?? launcherOf(child),
    ...(o.initializeTimeoutMs !== undefined ? { initializeTimeoutMs: o.initializeTimeoutMs } : {}),
  });
  const diagnostics = (): string[] =>
    events.flatMap((e) => (e.type === "diagnostic" ? [`${e.level}: ${e.message}`] : []));
  return { g, child, events, diagnostics };
}

/** A valid initialize result for `api` declaring the tool "echo" (API 0.2+: the required features). */
export function initializeResult(api: ApiVersion, extra: { features?: string[] } = {}): Record<string, unknown> {
  const tools = [{ name: "echo", description: "Echoes", parameters: { type: "object", properties: {} } }];
  const result: Record<string, unknown> = { api_version: api, tools, commands: [] };
  if (api !== "0.1") {
    const features = ["request_cancellation", "content_parts", ...(extra.features ?? [])];
    result["protocol"] = { version: api, features, limits: { max_concurrent_requests: 4 } };
  }
  return result;
}

/** Plays the extension's side of initialize with a valid answer. */
export async function answerInitialize(h: Harness, api: ApiVersion): Promise<Frame> {
  const init = await h.child.next("initialize");
  h.child.reply(init, initializeResult(api));
  return init;
}

/** A started generation (ready), its initialize answered by the fake extension. */
export async function started(api: ApiVersion, o: { child?: FakeChild } = {}): Promise<Harness> {
  const h = harness(api, o);
  await Promise.all([h.g.start(), answerInitialize(h, api)]);
  assert.equal(h.g.state, "ready");
  return h;
}
