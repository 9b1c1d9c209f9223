/**
 * One model request, built fresh for every logical turn: the system prompt with the extensions'
 * system_prefix / system_suffix context, the session's messages with prompt_prefix /
 * prompt_suffix context around the run's prompt (CTX-02), and the tools the model may call
 * (built-in tools first, then the catalog snapshot of this request, CAT-14). Context is placed in
 * the request only, never in the session: it is what the extensions say now, not a fact of the
 * conversation.
 */
import type { Context, Message, Tool, UserMessage } from "@mariozechner/pi-ai";
import type { ContextContribution } from "@octet/protocol";
import type { CatalogSnapshot } from "@octet/host";
import type { BuiltinTool } from "../tools/index.js";

export type PlacedContext = ContextContribution & { extension: string };

export interface RequestInput {
  systemPrompt: string;
  /** The session's context (buildContext), oldest first; not modified. */
  messages: readonly Message[];
  context: readonly PlacedContext[];
  builtins: readonly BuiltinTool[];
  catalog: CatalogSnapshot | null;
  /** The model's active tools (tools/set_active, W 2.23): only these are offered. Null or absent: all. */
  active?: ReadonlySet<string> | null;
}

export interface BuiltRequest {
  context: Context;
  /** Extension tools hidden because a built-in tool has the name (said once per request). */
  shadowed: string[];
}

/**
 * The built-in tools of one turn. With `replaceable` (pi's rule: "extensions can override built-in
 * tools by registering a tool with the same name"), an extension tool of a built-in's name takes
 * its place, and `replaced` names each one so the caller can warn, as pi does; otherwise the
 * built-in stays and the extension's tool is hidden (buildRequest's `shadowed`).
 */
export function turnBuiltins(
  builtins: readonly BuiltinTool[],
  catalog: CatalogSnapshot | null,
  replaceable: boolean,
): { builtins: readonly BuiltinTool[]; replaced: { name: string; extension: string }[] } {
  if (!replaceable || catalog === null) return { builtins, replaced: [] };
  const replaced: { name: string; extension: string }[] = [];
  const kept = builtins.filter((t) => {
    const entry = catalog.entry(t.name);
    if (entry) replaced.push({ name: t.name, extension: entry.extension });
    return !entry;
  });
  return { builtins: kept, replaced };
}

export function buildRequest(input: RequestInput): BuiltRequest {
  const by = (placement: ContextContribution["placement"]): PlacedContext[] =>
    input.context.filter((c) => (c.placement ?? "prompt_suffix") === placement);
  const builtinNames = new Set<string>(input.builtins.map((t) => t.name));
  const offered = (name: string): boolean => !input.active || input.active.has(name);
  const builtins = input.builtins.filter((t) => offered(t.name));
  const extensionTools = (input.catalog?.tools() ?? []).filter((t) => !builtinNames.has(t.name) && offered(t.name));
  const shadowed = (input.catalog?.tools() ?? []).filter((t) => builtinNames.has(t.name)).map((t) => t.name);
  const guidelines = extensionTools.flatMap((t) => (t.prompt_guidelines ?? []).map((g) => `- ${t.name}: ${g}`));
  const system = [
    ...by("system_prefix").map(block),
    input.systemPrompt,
    ...(guidelines.length > 0 ? [`Guidelines for the extension tools:\n${guidelines.join("\n")}`] : []),
    ...by("system_suffix").map(block),
  ].join("\n\n");
  const tools: Tool[] = [
    ...builtins.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters as never })),
    ...extensionTools.map((t) => ({
      name: t.name,
      description: t.prompt_snippet ? `${t.description}\n${t.prompt_snippet}` : t.description,
      parameters: t.parameters as never,
    })),
  ];
  const messages = placePromptContext(input.messages, by("prompt_prefix"), by("prompt_suffix"));
  return { context: { systemPrompt: system, messages, tools }, shadowed };
}

/** A contribution as the model reads it: its label as a heading, then the text. */
function block(c: PlacedContext): string {
  return `[${c.label} (extension ${c.extension})]\n${c.content}`;
}

/**
 * Prompt placements wrap the run's prompt: the last user message of the request (tool results
 * have their own role, so during a run the last user message is the one that started it).
 */
function placePromptContext(
  messages: readonly Message[],
  prefix: readonly PlacedContext[],
  suffix: readonly PlacedContext[],
): Message[] {
  const out = [...messages];
  if (prefix.length === 0 && suffix.length === 0) return out;
  let i = out.length - 1;
  while (i >= 0 && out[i]!.role !== "user") i--;
  if (i < 0) return out;
  const user = out[i] as UserMessage;
  const before = prefix.map((c) => ({ type: "text" as const, text: block(c) }));
  const after = suffix.map((c) => ({ type: "text" as const, text: block(c) }));
  const own = typeof user.content === "string" ? [{ type: "text" as const, text: user.content }] : user.content;
  out[i] = { ...user, content: [...before, ...own, ...after] };
  return out;
}
