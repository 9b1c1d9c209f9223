/**
 * Shared pieces of the API 0.2/0.4 runtime tests: extension folders around the wire-level
 * fixture fake-ext-v2.mjs, a host around them, and the wire as the fixture saw it (it logs every
 * frame to <extension dir>/frames.jsonl, so the log outlives the process).
 */
import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost, type ExtensionHostOptions, type HostEvent } from "@octet/host";
import { ROOT, processesMentioning, waitUntil } from "./helpers.js";

export const FAKE_V2 = join(ROOT, "tests", "fixtures", "fake-ext-v2.mjs");
export const ALL_TOOLS = [
  "echo",
  "frames",
  "progress",
  "cancellable",
  "ignore_cancel",
  "late",
  "hold",
  "input",
  "confirm",
  "result",
  "typed",
  "contribute",
  "ask",
  "set_menu",
  "set_render",
];
export const REQUIRED = ["request_cancellation", "content_parts"];

export interface V2Spec {
  name: string;
  api?: "0.2" | "0.4";
  /** The fixture's configuration (see fake-ext-v2.mjs); api and tools are filled in. */
  config?: Record<string, unknown>;
  /** Tool names in the manifest and (unless config.tools says otherwise) in initialize. */
  tools?: string[];
  commands?: string[];
  /** More [contributes] lines. */
  contributes?: string;
  /** More [capabilities] lines. */
  capabilities?: string;
}

export interface Frame {
  g: number;
  dir: "in" | "out";
  msg: {
    id?: number | string | null;
    method?: string;
    params?: any;
    result?: any;
    error?: { code: number; message: string };
  };
}

export interface Runtime {
  host: ExtensionHost;
  events: HostEvent[];
  dir: string;
  /** Every frame the fixture `name` received (dir "in") and sent ("out"), in order. */
  frames(name: string): Frame[];
  /** Frames the fixture received, optionally of one method. */
  received(name: string, method?: string): Frame["msg"][];
  /** Waits (bounded) for a received frame matching `match`, and returns it. */
  waitReceived(name: string, match: (m: Frame["msg"]) => boolean, what: string, ms?: number): Promise<Frame["msg"]>;
  diagnostics(name?: string): string[];
  waitDiagnostic(pattern: RegExp, ms?: number): Promise<string>;
}

function manifest(s: V2Spec): string {
  const api = s.api ?? "0.2";
  const tools = s.tools ?? ALL_TOOLS;
  const config = { api, tools, ...(s.commands ? { commands: s.commands } : {}), ...s.config };
  const list = (xs: string[]): string => `[${xs.map((x) => JSON.stringify(x)).join(", ")}]`;
  return `name = "${s.name}"
version = "0.0.1"
api_version = "${api}"

[entrypoint]
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(FAKE_V2)}, ${JSON.stringify(JSON.stringify(config))}]

[capabilities]
filesystem = "none"
process = false
network = false
${s.capabilities ?? ""}

[contributes]
tools = ${list(tools)}
commands = ${list(s.commands ?? [])}
${s.contributes ?? ""}
`;
}

/** Writes the extensions, starts a host on them, runs `body`, then shuts down and checks no process is left. */
export async function withRuntime(
  specs: V2Spec[],
  options: Partial<ExtensionHostOptions>,
  body: (rt: Runtime) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "octet-rt-"));
  for (const s of specs) {
    await mkdir(join(dir, s.name));
    await writeFile(join(dir, s.name, "extension.toml"), manifest(s));
  }
  const events: HostEvent[] = [];
  const frames = (name: string): Frame[] => {
    const file = join(dir, name, "frames.jsonl");
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Frame);
  };
  const received = (name: string, method?: string): Frame["msg"][] =>
    frames(name)
      .filter((f) => f.dir === "in" && (method === undefined || f.msg.method === method))
      .map((f) => f.msg);
  const diagnostics = (name?: string): string[] =>
    events.flatMap((e) => (e.type === "diagnostic" && (name === undefined || e.extension === name) ? [e.message] : []));
  const rt: Runtime = {
    host: undefined as unknown as ExtensionHost,
    events,
    dir,
    frames,
    received,
    diagnostics,
    async waitReceived(name, match, what, ms = 5_000) {
      let found: Frame["msg"] | undefined;
      await waitUntil(() => (found = received(name).find(match)) !== undefined, ms, what);
      return found!;
    },
    async waitDiagnostic(pattern, ms = 5_000) {
      let found: string | undefined;
      await waitUntil(
        () => (found = diagnostics().find((d) => pattern.test(d))) !== undefined,
        ms,
        `a diagnostic matching ${pattern}`,
      );
      return found!;
    },
  };
  // Restarts are scheduled but never fired unless a test brings its own supervision: these tests
  // look at one generation's end, not at the supervisor (tests/e2e/supervision.test.ts).
  const held = { now: () => Date.now(), random: () => 0.5, setTimer: () => () => undefined };
  const host = await ExtensionHost.start({
    workspace: dir,
    extensionDirs: [dir],
    enable: specs.map((s) => s.name),
    onEvent: (e) => events.push(e),
    supervision: { clock: held },
    ...options,
  });
  rt.host = host;
  try {
    await body(rt);
  } finally {
    await host.shutdown();
    const left = processesMentioning(dir);
    await rm(dir, { recursive: true, force: true });
    assert.deepEqual(left, [], `no process of ${dir} is left`);
  }
}

/** The parsed text of a tool result whose text is JSON. */
export function json(outcome: { text: string }): any {
  return JSON.parse(outcome.text);
}

/** An embedder service that waits until its signal aborts, recording that it did. */
export function untilAborted<T>(value: T, seen: { aborted: number }): (r: { signal: AbortSignal }) => Promise<T> {
  return ({ signal }) =>
    new Promise((resolve) =>
      signal.addEventListener(
        "abort",
        () => {
          seen.aborted++;
          resolve(value);
        },
        { once: true },
      ),
    );
}
