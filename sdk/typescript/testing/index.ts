/**
 * @octet/extension/testing: an extension author's test harness. `startExtension(dir)` runs the
 * extension in `dir` (an extension.toml or pi-extension.json folder) under the real host
 * (@octet/host), so a test sees what octet's users will see: the manifest checked, the process
 * spawned and negotiated, results checked against their schemas, the process group reaped.
 *
 * Why a separate entry: the SDK's runtime (the "." export) must not load the host, which an
 * extension process never needs. @octet/host (and @octet/rpi, for pi extensions) are optional
 * peer dependencies: only a test that imports this entry needs them installed.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ExtensionHost, type ExtensionHostOptions, type HostEvent } from "@octet/host";
import type {
  CommandResult,
  ContextContribution,
  ExtensionNotification,
  HookName,
  ProgressEvent,
} from "@octet/protocol";
import { Answers, type ConfirmAnswer, type InputAnswer } from "./answers.js";

export type { ConfirmAnswer, InputAnswer };

export interface StartOptions {
  /** The children's working directory. Default: a fresh temporary folder, removed by close(). */
  workspace?: string;
  /** Answers to confirmations, in order; when they run out, confirmations are denied (as headless). */
  confirm?: ConfirmAnswer[];
  /** Answers to input requests, in order (null cancels); when they run out, requests are cancelled. */
  input?: InputAnswer[];
  /** Environment the child's allowlist is taken from. Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Deadline of each call, command and hook in milliseconds (the host's default otherwise). */
  callMs?: number;
}

/** One call's outcome with the progress it reported. */
export interface CallResult {
  text: string;
  isError: boolean;
  structured: unknown;
  /** The whole outcome as the host returns it (parts, media, ...). */
  raw: Awaited<ReturnType<ExtensionHost["callTool"]>>;
  progress: ProgressEvent[];
}

export interface HookResult {
  denied: string | null;
  context: ContextContribution[];
  notifications: ExtensionNotification[];
}

/** What was asked of the person, in order. */
export interface Asked {
  kind: "confirm" | "input";
  prompt: string;
  answer: boolean | string | null;
}

export interface TestedExtension {
  /** The extension's name from its manifest. */
  readonly name: string;
  /** The host, for anything the helpers do not cover. */
  readonly host: ExtensionHost;
  /** Every progress event of every call, in order. */
  readonly progress: ProgressEvent[];
  /** The host's diagnostics about this extension (warnings and errors about what it sent). */
  readonly diagnostics: { level: string; message: string }[];
  /** Notifications it sent outside command results. */
  readonly notifications: ExtensionNotification[];
  /** Its stderr, line by line. */
  readonly stderr: string[];
  /** Confirmations and input requests asked, with the scripted answer given. */
  readonly asked: Asked[];
  /** The tools it published. */
  tools(): string[];
  /** Calls a tool; a tool's error result is returned (isError), an unreachable tool throws. */
  call(tool: string, args?: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<CallResult>;
  /** Runs a slash command: `command("hello", ["you"])` or `command("hello", "you there")`. */
  command(name: string, args?: string[] | string): Promise<CommandResult>;
  /** Runs a hook with its payload. */
  hook(name: HookName, payload?: Record<string, unknown>): Promise<HookResult>;
  /** The prompt context it contributes now, for `prompt` (default none). */
  context(prompt?: string): Promise<ContextContribution[]>;
  /** Adds scripted answers for later confirmations and input requests. */
  answer(answers: { confirm?: ConfirmAnswer[]; input?: InputAnswer[] }): void;
  /** Stops the extension (its whole process group) and removes the temporary folders. */
  close(): Promise<void>;
}

/**
 * Starts the extension in `dir` under the real host and waits until it is ready: an
 * extension.toml or pi-extension.json folder, or a pi extension file or folder (as octet
 * --pi-extension loads it). Rejects, with the host's reason and the tail of the extension's
 * stderr, when it does not become ready.
 */
export async function startExtension(dir: string, options: StartOptions = {}): Promise<TestedExtension> {
  const folder = resolve(dir);
  const temp = await mkdtemp(join(tmpdir(), "octet-testing-"));
  const cleanup = (): Promise<void> => rm(temp, { recursive: true, force: true });
  const answers = new Answers(options.confirm ?? [], options.input ?? []);
  const events: HostEvent[] = [];
  let host: ExtensionHost | null = null;
  try {
    const loading = await howToLoad(folder);
    const base: ExtensionHostOptions = {
      workspace: options.workspace ?? temp,
      ...loading.options,
      // Hermetic: no global extensions of the machine running the test, no shared caches.
      octetHome: join(temp, "home"),
      onEvent: (e) => events.push(e),
      services: { confirm: answers.confirm, input: answers.input, dynamicTools: true, artifacts: true },
      ...(options.env ? { env: options.env } : {}),
      ...(options.callMs !== undefined ? { timeouts: { callMs: options.callMs } } : {}),
    };
    const found = (await ExtensionHost.discover(base)).filter((s) => s.source === "explicit");
    const mine = loading.name === null ? found[0] : found.find((s) => s.name === loading.name);
    if (mine === undefined || mine.name === "") {
      const why = mine?.errors.join("; ") ?? "no extension.toml or pi-extension.json there";
      throw new Error(`startExtension(${JSON.stringify(dir)}): no extension found in ${folder}: ${why}`);
    }
    host = await ExtensionHost.start({ ...base, enable: [mine.name] });
    const status = host.status().find((s) => s.name === mine.name);
    if (status?.state !== "ready") {
      const tail = events.flatMap((e) => (e.type === "stderr" ? [e.line] : [])).slice(-10);
      const reasons = new Set([status?.reason, status?.lastError, ...(status?.errors ?? [])].filter(Boolean));
      throw new Error(
        `extension ${mine.name} (${folder}) is ${status?.state ?? "not started"}, not ready: ` +
          `${[...reasons].join("; ") || "no reason given"}` +
          (tail.length > 0 ? `\nits stderr ends:\n  ${tail.join("\n  ")}` : ""),
      );
    }
    return tested(mine.name, host, events, answers, cleanup);
  } catch (err) {
    await host?.shutdown();
    await cleanup();
    throw err;
  }
}

/**
 * How the host finds the extension: a folder with extension.toml (or pi-extension.json, through
 * the rpi runtime) is an extension folder; any other path is a pi extension as `octet
 * --pi-extension PATH` loads it (a .ts/.js file, or a folder with index.ts). @octet/rpi is
 * imported only for pi extensions, so it stays an optional peer.
 */
async function howToLoad(path: string): Promise<{ options: ExtensionHostOptions; name: string | null }> {
  const isDir = (await stat(path).catch(() => null))?.isDirectory() ?? false;
  const has = (file: string): boolean => isDir && existsSync(join(path, file));
  if (has("extension.toml")) return { options: { extensionDirs: [path] }, name: null };
  const piFolder = ["pi-extension.json", "index.ts", "index.js", "index.mjs", "package.json"].some(has);
  if (isDir ? !piFolder : !existsSync(path))
    throw new Error(
      `no extension found in ${path}: no extension.toml or pi-extension.json there, nor a pi extension ` +
        "(index.ts, index.js or a package.json with a pi entry)",
    );
  let rpi: typeof import("@octet/rpi");
  try {
    rpi = await import("@octet/rpi");
  } catch (err) {
    throw new Error(
      `${path} is not an extension.toml folder, so it is loaded as a pi extension, which needs @octet/rpi ` +
        `(npm install --save-dev @octet/rpi): ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (has("pi-extension.json"))
    return { options: { extensionDirs: [path], runtimes: [rpi.rpiRuntime({ mode: "rpc" })] }, name: null };
  return {
    options: { runtimes: [rpi.rpiRuntime({ mode: "rpc", piExtensions: [path] })] },
    name: rpi.piExtensionId(path),
  };
}

function tested(
  name: string,
  host: ExtensionHost,
  events: HostEvent[],
  answers: Answers,
  cleanup: () => Promise<void>,
): TestedExtension {
  const progress: ProgressEvent[] = [];
  const diagnostics: { level: string; message: string }[] = [];
  const notifications: ExtensionNotification[] = [];
  const stderr: string[] = [];
  const take = (e: HostEvent): void => {
    if (e.extension !== name) return;
    if (e.type === "diagnostic") diagnostics.push({ level: e.level, message: e.message });
    else if (e.type === "notification") notifications.push(e.notification);
    else if (e.type === "stderr") stderr.push(e.line);
  };
  for (const e of events.splice(0)) take(e);
  host.onEvent(take);
  let closed: Promise<void> | null = null;
  return {
    name,
    host,
    progress,
    diagnostics,
    notifications,
    stderr,
    asked: answers.asked,
    tools: () => host.tools().map((t) => t.name),
    async call(tool, args = {}, options = {}) {
      const mine: ProgressEvent[] = [];
      const raw = await host.callTool(tool, args, {
        onProgress: (e) => (mine.push(e), progress.push(e)),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return { text: raw.text, isError: raw.is_error, structured: raw.structured_content, raw, progress: mine };
    },
    async command(command, args = []) {
      const list = typeof args === "string" ? args.split(/\s+/).filter((a) => a !== "") : args;
      const { extension: _, ...result } = await host.runCommand(command, list);
      return result;
    },
    async hook(hook, payload = {}) {
      const r = await host.runHook(hook, payload);
      return {
        denied: r.denied?.reason ?? null,
        context: r.context.map(({ extension: _, ...c }) => c),
        notifications: r.notifications.map(({ extension: _, ...n }) => n),
      };
    },
    async context(prompt) {
      return (await host.collectContext({ prompt: prompt ?? null })).map(({ extension: _, ...c }) => c);
    },
    answer: (more) => answers.add(more.confirm ?? [], more.input ?? []),
    close() {
      closed ??= host.shutdown().finally(cleanup);
      return closed;
    },
  };
}
