/**
 * The collection requests of the embedding API: hooks with their dispositions, context/collect,
 * status/collect and tool/render, each routed only to the extensions that declared it. A failing
 * extension never fails the collection: it is diagnosed and left out (HOOK-10, REND-03).
 */
import {
  OctetError,
  validateContextContributions,
  validateHookResult,
  validateRenderResult,
  validateStatusResult,
  type ContextContribution,
  type ExtensionNotification,
  type HookName,
  type RenderSegment,
  type StatusContribution,
  type UiSurface,
} from "@octet/protocol";
import type { CollectEnv, RequestTarget as Generation } from "../target.js";

export type { CollectEnv } from "../target.js";

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface HookOutcome {
  /** Set when a before_prompt / before_tool_call hook denied the operation (HOOK-06). */
  denied: { extension: string; reason: string } | null;
  context: (ContextContribution & { extension: string })[];
  notifications: (ExtensionNotification & { extension: string })[];
}

export interface RenderInput {
  name: string;
  arguments: Record<string, unknown>;
  output: string;
  isError: boolean;
}

const DENY_HOOKS: readonly string[] = ["before_prompt", "before_tool_call"];

/**
 * Runs a hook on every ready extension that declared it, in discovery order. A failing or
 * timed-out hook counts as continue and is diagnosed (HOOK-10). Deny is honoured only for
 * before_prompt and before_tool_call (HOOK-06); the first deny stops the chain.
 */
export async function runHook(
  gens: readonly Generation[],
  hook: HookName,
  payload: Record<string, unknown>,
  options: CallOptions,
  env: CollectEnv,
): Promise<HookOutcome> {
  const outcome: HookOutcome = { denied: null, context: [], notifications: [] };
  for (const g of gens) {
    if (!g.spec.manifest.contributes.hooks.includes(hook)) continue;
    const withOwner =
      hook === "before_prompt" ||
      hook === "after_response" ||
      hook === "before_tool_call" ||
      hook === "after_tool_call";
    let raw: unknown;
    try {
      raw = await g.request(
        "hook/run",
        { hook, payload, context: g.context(withOwner) },
        { timeoutMs: options.timeoutMs ?? env.collectMs, signal: options.signal },
      );
    } catch (err) {
      env.diagnoseFailure(g, `hook ${hook}`, err);
      continue;
    }
    const checked = validateHookResult(raw, hook);
    if (!checked.ok) {
      env.emit({
        type: "diagnostic",
        extension: g.name,
        generation: g.number,
        level: "warning",
        message: `invalid hook/run result for ${hook}, treated as continue: ${checked.problems.join("; ")}`,
      });
      continue;
    }
    const r = checked.value;
    outcome.context.push(...r.context.map((c) => ({ ...c, extension: g.name })));
    outcome.notifications.push(...r.notifications.map((n) => ({ ...n, extension: g.name })));
    if (r.disposition.action === "deny" && DENY_HOOKS.includes(hook)) {
      outcome.denied = { extension: g.name, reason: r.disposition.reason };
      break;
    }
  }
  return outcome;
}

/** context/collect from every ready extension that declared contributes.context (CTX-03). */
export async function collectContext(
  gens: readonly Generation[],
  input: { prompt: string | null },
  options: CallOptions,
  env: CollectEnv,
): Promise<(ContextContribution & { extension: string })[]> {
  const out: (ContextContribution & { extension: string })[] = [];
  const jobs = gens
    .filter((g) => g.spec.manifest.contributes.context)
    .map(async (g) => {
      try {
        const raw = await g.request(
          "context/collect",
          { prompt: input.prompt, context: g.context(true) },
          { timeoutMs: options.timeoutMs ?? env.collectMs, signal: options.signal },
        );
        const checked = validateContextContributions(raw);
        if (!checked.ok)
          throw new OctetError("invalid_result", `invalid context/collect result: ${checked.problems.join("; ")}`);
        return checked.value.map((c) => ({ ...c, extension: g.name }));
      } catch (err) {
        env.diagnoseFailure(g, "context/collect", err);
        return [];
      }
    });
  for (const list of await Promise.all(jobs)) out.push(...list);
  return out;
}

/** status/collect from every ready extension that declared the surface in contributes.ui. */
export async function collectStatus(
  gens: readonly Generation[],
  surface: UiSurface,
  options: CallOptions,
  env: CollectEnv,
): Promise<(StatusContribution & { extension: string })[]> {
  const jobs = gens
    .filter((g) => g.spec.manifest.contributes.ui.includes(surface))
    .map(async (g) => {
      try {
        const raw = await g.request(
          "status/collect",
          { surface, context: g.context(false) },
          { timeoutMs: options.timeoutMs ?? env.collectMs, signal: options.signal },
        );
        const checked = validateStatusResult(raw, surface);
        if (!checked.ok)
          throw new OctetError("invalid_result", `invalid status/collect result: ${checked.problems.join("; ")}`);
        return checked.value ? [{ ...checked.value, extension: g.name }] : [];
      } catch (err) {
        env.diagnoseFailure(g, "status/collect", err);
        return [];
      }
    });
  return (await Promise.all(jobs)).flat();
}

/**
 * tool/render for a tool whose extension declared a renderer (REND-02). Returns null when no
 * renderer applies or it failed (the caller falls back to plain output, REND-03).
 */
export async function renderTool(
  gens: readonly Generation[],
  input: RenderInput,
  options: CallOptions,
  env: CollectEnv,
): Promise<RenderSegment[] | null> {
  const found = gens.find(
    (g) =>
      g.spec.manifest.contributes.tool_renderers.includes(input.name) && g.tools.some((t) => t.name === input.name),
  );
  if (!found) return null;
  const g = found;
  try {
    const raw = await g.request(
      "tool/render",
      {
        name: input.name,
        arguments: input.arguments,
        output: input.output,
        is_error: input.isError,
        context: g.context(false),
      },
      { timeoutMs: options.timeoutMs ?? env.collectMs, signal: options.signal },
    );
    const checked = validateRenderResult(raw);
    if (!checked.ok)
      throw new OctetError("invalid_result", `invalid tool/render result: ${checked.problems.join("; ")}`);
    return checked.value.segments;
  } catch (err) {
    env.diagnoseFailure(g, "tool/render", err);
    return null;
  }
}
