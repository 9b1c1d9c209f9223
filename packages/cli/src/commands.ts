/**
 * The one-shot commands: extensions list/status, call and command. Each maps arguments to the
 * host API and its outcome to output and an exit status (see exit-codes.ts).
 */
import { ExtensionHost, notReadyReasons, type ToolCallOutcome } from "@octet/host";
import { ErrorCode, OctetError, WireError } from "@octet/protocol";
import { UsageError, type GlobalOptions } from "./args.js";
import { EXIT_INTERRUPTED, EXIT_OK, EXIT_TOOL_ERROR, EXIT_UNAVAILABLE } from "./exit-codes.js";
import { listTable, statusTable, terminalSafe } from "./output.js";
import type { ProgressView } from "./progress-view.js";
import { createUi, hostOptions, withHost, type CliUi } from "./session.js";
import { saveMedia, type SavedMedia } from "./media-files.js";

export async function extensionsList(options: GlobalOptions): Promise<number> {
  const list = await ExtensionHost.discover(hostOptions(options));
  process.stdout.write(options.json ? JSON.stringify(list.map(listJson), null, 2) + "\n" : listTable(list));
  return EXIT_OK;
}

function listJson(s: Awaited<ReturnType<typeof ExtensionHost.discover>>[number]): Record<string, unknown> {
  return {
    name: s.name,
    version: s.version,
    runtime: s.runtime,
    api_version: s.apiVersion,
    source: s.source,
    manifest_path: s.manifestPath,
    enabled: s.enabled,
    trusted: s.trusted,
    errors: s.errors,
    reason: s.reason,
  };
}

export async function extensionsStatus(options: GlobalOptions): Promise<number> {
  const outcome = await withHost(
    (signal) => ExtensionHost.start(hostOptions(options, { signal })),
    async (host) => host.status(),
  );
  if (outcome.error !== undefined) return reportFailure(options, outcome.error, outcome.interrupted);
  const list = outcome.value!;
  process.stdout.write(options.json ? JSON.stringify(list, null, 2) + "\n" : statusTable(list, options.verbose));
  const failed = list.some((s) => s.enabled && s.trusted && s.state !== "ready");
  return failed ? EXIT_UNAVAILABLE : EXIT_OK;
}

/**
 * `octet extensions reload [NAME]`: starts the enabled extensions, replaces NAME (default: every
 * running one) with a new generation the way a long-running host would (candidate first, then
 * the old one drains), and shows the status. For extension authors: checks that an extension
 * survives a reload with the same catalog.
 */
export async function extensionsReload(options: GlobalOptions, name: string | undefined): Promise<number> {
  const outcome = await withHost(
    (signal) => ExtensionHost.start(hostOptions(options, { signal })),
    async (host) => {
      const running = host
        .status()
        .filter((s) => s.state === "ready")
        .map((s) => s.name);
      if (name !== undefined && !host.status().some((s) => s.name === name))
        throw new UsageError(
          `no extension named "${name}" was discovered (known: ${
            host
              .status()
              .map((s) => s.name)
              .join(", ") || "none"
          })`,
        );
      const names = name !== undefined ? [name] : running;
      if (names.length === 0) {
        const notReady = notReadyReasons(host.status(), options.enable);
        const hint =
          notReady.length > 0 ? notReady.map((r) => `\n  ${r}`).join("") : "; enable one with --enable-extension NAME";
        throw new OctetError("not_ready", `no extension is running to reload${hint}`);
      }
      for (const n of names) {
        await host.reload(n);
        if (!options.json) process.stderr.write(`reloaded ${n}\n`);
      }
      return host.status();
    },
  );
  if (outcome.error !== undefined) {
    if (outcome.error instanceof UsageError) throw outcome.error;
    return reportFailure(options, outcome.error, outcome.interrupted);
  }
  const list = outcome.value!;
  process.stdout.write(options.json ? JSON.stringify(list, null, 2) + "\n" : statusTable(list, options.verbose));
  return EXIT_OK;
}

export function parseToolArgs(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `ARGS_JSON is not valid JSON (${err instanceof Error ? err.message : String(err)}): ${text.slice(0, 200)}`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(
      `ARGS_JSON must be a JSON object such as '{"name":"x"}', got ` +
        `${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`,
    );
  }
  return value as Record<string, unknown>;
}

export async function call(options: GlobalOptions, positionals: string[]): Promise<number> {
  const [tool, argsText, ...rest] = positionals;
  if (tool === undefined) throw new UsageError("call needs a TOOL name: octet call TOOL [ARGS_JSON]");
  if (rest.length > 0)
    throw new UsageError(`call takes one ARGS_JSON argument; got extra arguments: ${rest.join(" ")} (quote the JSON)`);
  const args = parseToolArgs(argsText);
  const ui = createUi(options);
  const outcome = await withHost(
    (signal) => ExtensionHost.start(hostOptions(options, { signal }, ui)),
    (host, signal) => withProgress(ui, tool, (onProgress) => host.callTool(tool, args, { signal, onProgress })),
    ui.line,
  );
  if (outcome.error !== undefined) return reportFailure(options, outcome.error, outcome.interrupted);
  const result = outcome.value as ToolCallOutcome;
  let saved: SavedMedia[] = [];
  try {
    saved = await saveMedia(options.mediaDir, tool, result.media ?? []);
  } catch (err) {
    process.stderr.write(
      `octet: could not save the result's media to ${options.mediaDir}: ` +
        `${err instanceof Error ? err.message : String(err)}\n`,
    );
    return EXIT_UNAVAILABLE;
  }
  for (const m of saved) process.stderr.write(`saved ${m.mime_type} (${m.size} bytes) to ${m.path}\n`);
  if (options.json)
    process.stdout.write(
      JSON.stringify({ ...resultJson(tool, result), ...(saved.length > 0 ? { media: saved } : {}) }, null, 2) + "\n",
    );
  else {
    // On a terminal the text is made safe; piped, it is data and passes unchanged.
    const text = process.stdout.isTTY ? terminalSafe(result.text) : result.text;
    process.stdout.write(text.endsWith("\n") || text === "" ? text : `${text}\n`);
  }
  return result.is_error ? EXIT_TOOL_ERROR : EXIT_OK;
}

function resultJson(tool: string, r: ToolCallOutcome): Record<string, unknown> {
  const out: Record<string, unknown> = {
    extension: r.extension,
    tool,
    is_error: r.is_error,
    content: r.parts,
    text: r.text,
  };
  if (r.structured_content !== undefined) out["structured_content"] = r.structured_content;
  if (r.metadata !== undefined) out["metadata"] = r.metadata;
  return out;
}

export async function command(options: GlobalOptions, positionals: string[]): Promise<number> {
  const [name, ...args] = positionals;
  if (name === undefined) throw new UsageError("command needs a NAME: octet command NAME [ARG...]");
  const ui = createUi(options);
  const outcome = await withHost(
    (signal) => ExtensionHost.start(hostOptions(options, { signal }, ui)),
    (host, signal) =>
      withProgress(ui, `/${name.replace(/^\//, "")}`, (onProgress) =>
        host.runCommand(name.replace(/^\//, ""), args, { signal, onProgress }),
      ),
    ui.line,
  );
  if (outcome.error !== undefined) return reportFailure(options, outcome.error, outcome.interrupted);
  const r = outcome.value!;
  if (options.json) {
    process.stdout.write(
      JSON.stringify(
        { extension: r.extension, command: name, text: r.text, notifications: r.notifications, context: r.context },
        null,
        2,
      ) + "\n",
    );
  } else {
    const text = process.stdout.isTTY ? terminalSafe(r.text) : r.text;
    process.stdout.write(text.endsWith("\n") || text === "" ? text : `${text}\n`);
    for (const n of r.notifications)
      process.stderr.write(
        `[${r.extension}] ${n.level}: ${terminalSafe(n.title)}${n.message ? ` — ${terminalSafe(n.message)}` : ""}\n`,
      );
  }
  return EXIT_OK;
}

/** Runs one call with a progress view on stderr, finished (line cleared, output flushed) however it ends. */
export async function withProgress<T>(
  ui: CliUi,
  label: string,
  run: (onProgress: ProgressView["handle"]) => Promise<T>,
): Promise<T> {
  const view = ui.progress(label);
  try {
    return await run(view.handle);
  } finally {
    view.finish();
  }
}

/**
 * An error's message for a person: a -32602 refusal of the host argument validator says what was
 * given after its message (`arguments.name: must be string (got number 5)`), from its data.
 */
export function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof WireError) || error.code !== ErrorCode.InvalidParams) return message;
  const errors = (error.data as { errors?: unknown } | undefined)?.errors;
  const got = Array.isArray(errors) ? (errors[0] as { got?: unknown } | undefined)?.got : undefined;
  return typeof got === "string" ? `${message} (got ${got})` : message;
}

/**
 * Prints why a call failed, and picks the exit status: an error the extension itself answered
 * (a JSON-RPC error reply) is the command's error result (1); anything else means the extension
 * could not be started or reached (3), or the user interrupted (130).
 */
export function reportFailure(options: GlobalOptions, error: unknown, interrupted: boolean): number {
  const code = error instanceof OctetError ? error.code : error instanceof WireError ? error.code : "error";
  const message = error instanceof Error ? error.message : String(error);
  if (options.json) process.stdout.write(JSON.stringify({ error: { code, message } }, null, 2) + "\n");
  else process.stderr.write(`octet: ${terminalSafe(errorText(error))}\n`);
  if (interrupted) return EXIT_INTERRUPTED;
  return error instanceof WireError ? EXIT_TOOL_ERROR : EXIT_UNAVAILABLE;
}
