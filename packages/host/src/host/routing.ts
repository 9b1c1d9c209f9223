/**
 * Routing of tool calls and commands to the generation that serves them (CALL-03, CALL-04,
 * CAT-15, CMD-01), with the host argument validator before any send (issue 13.2). A call refused
 * before a byte was written (not_sent: its generation began draining while it waited for a slot)
 * goes once to the replacement that serves the tool now; that is not a replay. A name no ready
 * extension serves is answered with every enabled extension that is not ready and why (13.3).
 */
import {
  OctetError,
  WireError,
  bounds,
  validateCommandResult,
  type CommandResult,
  type ProgressEvent,
  type ToolDefinition,
} from "@octet/protocol";
import { quietError } from "../util/quiet-error.js";
import type { HostEvent } from "../events.js";
import type { Generation } from "../generation/generation.js";
import type { CallOptions as CollectOptions } from "../modules/collection/collect.js";
import { notReadyReasons, statusOf } from "./extension-status.js";
import { toolError, toolOutcome, type ToolCallOutcome } from "../generation/tool-outcome.js";
import { refuseInvalidArguments } from "../schema-check/call-arguments.js";
import type { ToolSchemas } from "../schema-check/tool-schemas.js";
import type { CatalogSnapshot } from "./catalog-snapshot.js";
import type { Roster } from "./roster.js";

export interface CallOptions extends CollectOptions {
  /** Receives the call's $/progress events (API 0.2+), output cut into chunks of at most 8 KiB. */
  onProgress?: (event: ProgressEvent) => void;
  /**
   * The catalog snapshot the model request that produced this call was built from
   * (host.catalog()): the call then uses the definition and catalog epoch the model saw
   * (CALL-04, CAT-15). Without it, the catalog published now.
   */
  catalog?: CatalogSnapshot;
}

export interface RouterOptions {
  roster: Roster;
  /** The embedder's default call deadline (timeouts.callMs), else CALL_TIMEOUT_MS. */
  callMs: number | undefined;
  /** The names the embedder enabled: one never discovered is named when nothing answers. */
  enabled: readonly string[];
  emit: (event: HostEvent) => void;
}

interface ResolvedTool {
  g: Generation;
  definition: ToolDefinition;
  revision: number | null;
  schemas: ToolSchemas;
}

type CommandOutcome = Promise<CommandResult & { extension: string }>;

export class Router {
  readonly #o: RouterOptions;

  constructor(options: RouterOptions) {
    this.#o = options;
  }

  callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolCallOutcome> {
    return this.#callTool(name, args, options, null);
  }

  /** Runs a command on whichever ready extension declares it. */
  runCommand(name: string, args: string[], options: CallOptions): CommandOutcome {
    return this.#runCommand(name, args, options, null, false);
  }

  /**
   * Runs a command of `extension` only; `preApproved`: a destructive action the host confirmed
   * already, so the command's first confirmation needs no second yes (MENU-13).
   */
  runCommandOf(
    extension: string,
    name: string,
    args: string[],
    options: CallOptions,
    preApproved: boolean,
  ): CommandOutcome {
    return this.#runCommand(name, args, options, extension, preApproved);
  }

  /**
   * Refuses a before_tool_call payload whose arguments the validator refuses, so such a call never
   * reaches a hook (issue 13.2, COMP-14). A tool no extension provides (the embedder's own) passes.
   */
  checkHookCall(payload: Record<string, unknown>, options: CallOptions): void {
    if (typeof payload["name"] !== "string" || payload["arguments"] === undefined) return;
    const schemas = this.#knownTool(payload["name"], options);
    if (schemas) refuseInvalidArguments(payload["name"], schemas, payload["arguments"]);
  }

  /** The generation, definition, epoch and its schemas a call goes out with (CALL-03, CALL-04, CAT-15). */
  #resolveTool(name: string, options: CallOptions, refusedBy: Generation | null): ResolvedTool {
    const seen = options.catalog?.entry(name);
    if (options.catalog && !seen) {
      const available =
        options.catalog
          .tools()
          .map((t) => t.name)
          .join(", ") || "none";
      const message = `tool "${name}" is not in the catalog snapshot this call was made from (available: ${available})`;
      throw new OctetError("unknown_tool", message);
    }
    const g = seen
      ? this.#firstReady((x) => x !== refusedBy && x.name === seen.extension)
      : this.#firstReady((x) => x !== refusedBy && x.tools.some((t) => t.name === name));
    if (!g) {
      throw new OctetError(
        "unknown_tool",
        this.#unknown(
          "tool",
          name,
          this.#o.roster.tools().map((t) => t.name),
        ),
      );
    }
    if (!seen) {
      return { g, definition: g.tools.find((t) => t.name === name)!, revision: g.catalogRevision, schemas: g.schemas };
    }
    if (seen.generation === g.number) {
      return { g, definition: seen.definition, revision: seen.revision, schemas: seen.schemas ?? g.schemas };
    }
    // The snapshot's generation was replaced. Without dynamic tools the catalog is the same by
    // construction (SUP-15); with them, the epoch the model saw belongs to a process that is gone.
    const current = g.tools.find((t) => t.name === name);
    if (seen.revision !== null || g.catalogRevision !== null || !current) {
      const planned = `generation ${seen.generation} of extension "${seen.extension}"`;
      const message = `tool "${name}" was planned against ${planned}, which was replaced by generation ${g.number}`;
      throw new OctetError("stale_catalog", `${message}; take a new catalog snapshot`);
    }
    return { g, definition: current, revision: null, schemas: g.schemas };
  }

  /** roster.ready().find() without building the list: this runs for every call. */
  #firstReady(matches: (g: Generation) => boolean): Generation | undefined {
    for (const e of this.#o.roster.entries) {
      const g = e.generation;
      if (g && g.state === "ready" && matches(g)) return g;
    }
    return undefined;
  }

  async #callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
    refusedBy: Generation | null,
  ): Promise<ToolCallOutcome> {
    const { g, definition, revision, schemas } = this.#resolveTool(name, options, refusedBy);
    // The host argument validator: before any send (and, through runHook, before any hook).
    refuseInvalidArguments(name, schemas, args);
    let raw: unknown;
    try {
      raw = await this.#requestTool(g, name, args, revision, options);
    } catch (err) {
      if (err instanceof WireError) return toolError(g, `Tool ${name} failed: ${err.message} (code ${err.code})`);
      // Refused before a byte was written (the generation began draining while the call waited
      // for a slot): send it to the replacement if one serves the tool now. Not a replay.
      if (err instanceof OctetError && err.code === "not_sent" && refusedBy === null && this.#hasReplacement(g)) {
        return this.#callTool(name, args, options, g);
      }
      throw withSubject(err, `tool "${name}" of extension "${g.name}"`);
    }
    return toolOutcome(g, definition, raw, this.#o.emit, schemas);
  }

  /**
   * The tool/call request itself. Its params and their spliced text are made here, not in
   * #callTool, so the async frame that waits for the answer does not hold them for the whole
   * call (what a call in flight holds is what survives each young collection, issue 19).
   */
  #requestTool(
    g: Generation,
    name: string,
    args: Record<string, unknown>,
    revision: number | null,
    options: CallOptions,
  ): Promise<unknown> {
    const params: Record<string, unknown> = { name, arguments: args, context: g.context(true) };
    // Only for a generation that negotiated dynamic_tools (CALL-03).
    if (revision !== null) params["catalog_revision"] = revision;
    const paramsText = toolCallText(name, args, g.ownedContextText(), revision);
    const { signal, onProgress } = options;
    return g.request("tool/call", params, { timeoutMs: this.#timeout(options), signal, onProgress, paramsText });
  }

  async #runCommand(
    name: string,
    args: string[],
    options: CallOptions,
    only: string | null,
    preApproved: boolean,
  ): CommandOutcome {
    const found = this.#o.roster.ready().find(({ g }) => {
      return (only === null || g.name === only) && g.accepted?.result.commands.some((c) => c.name === name);
    });
    if (!found) {
      const known = this.#o.roster.commands().map((c) => c.name);
      throw new OctetError("unknown_command", this.#unknown("command", name, known));
    }
    const { g } = found;
    let raw: unknown;
    try {
      raw = await g.request(
        "command/execute",
        { name, arguments: args, context: g.context(true) },
        {
          timeoutMs: this.#timeout(options),
          signal: options.signal,
          onProgress: options.onProgress,
          preApproveFirstConfirmation: preApproved,
        },
      );
    } catch (err) {
      throw withSubject(err, `command /${name} of extension "${g.name}"`);
    }
    const checked = validateCommandResult(raw);
    if (!checked.ok) {
      const problems = checked.problems.join("; ");
      const message = `extension "${g.name}" returned an invalid command/execute result: ${problems}`;
      throw new OctetError("invalid_result", message);
    }
    // Member by member, not spread: see tool-outcome.ts outcomeOf for what a spread costs here.
    const { text, notifications, context } = checked.value;
    return { text, notifications, context, extension: g.name };
  }

  #timeout(options: CallOptions): number {
    return options.timeoutMs ?? this.#o.callMs ?? bounds.CALL_TIMEOUT_MS;
  }

  #hasReplacement(g: Generation): boolean {
    return this.#o.roster.ready().some(({ g: other }) => other !== g && other.name === g.name);
  }

  /** The schemas a call of `name` would be validated against, or null for a tool no extension provides. */
  #knownTool(name: string, options: CallOptions): ToolSchemas | null {
    try {
      return this.#resolveTool(name, options, null).schemas;
    } catch {
      return null;
    }
  }

  #unknown(kind: "tool" | "command", name: string, known: string[]): string {
    const declared = kind === "tool" ? "tools" : "commands";
    const entry = this.#o.roster.entries.find((e) => e.discovered.manifest?.contributes[declared].includes(name));
    if (entry) {
      const s = statusOf(entry);
      return `${kind} "${name}" belongs to extension "${s.name}", which is ${s.state}: ${s.lastError ?? s.reason}`;
    }
    // Every enabled extension that is not ready is named with why: that is usually the answer (13.3).
    const notReady = notReadyReasons(this.#o.roster.status(), this.#o.enabled);
    const running =
      known.length > 0
        ? `available: ${known.join(", ")}`
        : notReady.length > 0
          ? "no extension is running"
          : "no extension is running; enable one with --enable-extension NAME";
    return `no ready extension provides ${kind} "${name}" (${running})${notReady.map((r) => `\n  ${r}`).join("")}`;
  }
}

/** The codes of a call given up on purpose: the caller's cancel, a deadline, a slot never granted. */
const QUIET_CODES: ReadonlySet<string> = new Set(["request_cancelled", "request_timeout"]);

/** Prefixes a local error with what was being done, keeping its code ("tool "x" of extension "y": ..."). */
function withSubject(err: unknown, subject: string): unknown {
  if (err instanceof OctetError) {
    const message = `${subject}: ${err.message}`;
    // A cancellation is control flow (quiet-error.ts); any other error keeps its stack, whose
    // async frames show the embedder where its call came from.
    if (QUIET_CODES.has(err.code)) return quietError(err.code, message, { cause: err });
    return new OctetError(err.code, message, { cause: err });
  }
  if (err instanceof WireError) return new WireError(err.code, `${subject}: ${err.message}`, err.data);
  return err;
}

/**
 * The JSON text of a tool/call's params with the generation's context spliced in as encoded once
 * (what JSON.stringify(params) gives, member for member), or undefined when the arguments have no
 * JSON text of their own: the peer then encodes params itself and reports why it cannot.
 */
function toolCallText(name: string, args: unknown, contextText: string, revision: number | null): string | undefined {
  let argsText: string | undefined;
  try {
    argsText = JSON.stringify(args);
  } catch {
    return undefined;
  }
  if (argsText === undefined) return undefined;
  const head = `{"name":${JSON.stringify(name)},"arguments":${argsText},"context":${contextText}`;
  return revision === null ? `${head}}` : `${head},"catalog_revision":${JSON.stringify(revision)}}`;
}
