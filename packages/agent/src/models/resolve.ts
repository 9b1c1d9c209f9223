// From a ModelChoice to a pi-ai Model and its credentials: models.json providers first (custom
// providers, and built-in ones routed, overridden or extended as pi's models.md says), then pi-ai's
// built-in catalog. Keys resolve as pi does; a missing key is an error that names what to set.
import { type Api, getModels, getProviders, type KnownProvider, type Model } from "@mariozechner/pi-ai";
import { builtInKey, type Env, keyVarHint, keyVarsOf, resolveConfigValue } from "./keys.js";
import { isBuiltInProvider, type ModelConfig, type ModelsFile, type ProviderConfig } from "./models-file.js";
import { formatModelRef, type ModelChoice } from "./ref.js";

export interface ResolvedModel {
  model: Model<Api>;
  /** Pass as stream options' apiKey. */
  apiKey: string | undefined;
  /** Resolved models.json headers (authHeader included); pass as stream options' headers. */
  headers?: Record<string, string>;
  source: "models.json" | "built-in";
  /** What the user should check when the provider refuses the key: a variable or a models.json field. */
  keyHint: string;
}

export interface ModelListing {
  provider: string;
  id: string;
  name: string;
  contextWindow: number;
  source: "models.json" | "built-in";
  hasKey: boolean;
}

// pi's defaults for a models.json model (docs/models.md, "Model Configuration").
const DEFAULT_CONTEXT_WINDOW = 128_000;
const DEFAULT_MAX_TOKENS = 16_384;
// How many ids an "unknown model" error lists before "... N more".
const IDS_SHOWN = 20;

interface Entry {
  model: Model<Api>;
  source: "models.json" | "built-in";
}

/** Every provider name: models.json ones first, then pi-ai's built-ins not already listed. */
export function providerNames(modelsFile: ModelsFile | null): string[] {
  const custom = modelsFile ? [...modelsFile.providers.keys()] : [];
  return [...custom, ...(getProviders() as string[]).filter((p) => !custom.includes(p))];
}

/** A provider's models after models.json is applied; undefined for an unknown provider. */
export function providerModels(provider: string, modelsFile: ModelsFile | null): Entry[] | undefined {
  const config = modelsFile?.providers.get(provider);
  const builtIn = isBuiltInProvider(provider);
  if (!builtIn && !config) return undefined;
  const entries: Entry[] = builtIn
    ? getModels(provider as KnownProvider).map((m) => routed(m as Model<Api>, config))
    : [];
  for (const m of config?.models ?? []) {
    const first = entries[0]?.model;
    const model = customModel(provider, m, config as ProviderConfig, first);
    const at = entries.findIndex((e) => e.model.id === m.id);
    const entry: Entry = { model, source: "models.json" };
    if (at >= 0) entries[at] = entry;
    else entries.push(entry);
  }
  return entries;
}

// A built-in model with its provider's models.json settings: baseUrl, compat, modelOverrides.
function routed(builtIn: Model<Api>, config: ProviderConfig | undefined): Entry {
  // A copy: pi-ai hands out its catalog's own objects, and a caller may change what it gets.
  if (!config) return { model: { ...builtIn }, source: "built-in" };
  const over = config.modelOverrides?.[builtIn.id];
  if (config.baseUrl === undefined && config.compat === undefined && over === undefined) {
    return { model: { ...builtIn }, source: "built-in" };
  }
  const model = { ...builtIn } as Model<Api>;
  if (config.baseUrl !== undefined) model.baseUrl = config.baseUrl;
  setCompat(model, builtIn.compat, config.compat, over?.compat);
  if (over) {
    if (over.name !== undefined) model.name = over.name;
    if (over.reasoning !== undefined) model.reasoning = over.reasoning;
    if (over.input !== undefined) model.input = over.input;
    if (over.contextWindow !== undefined) model.contextWindow = over.contextWindow;
    if (over.maxTokens !== undefined) model.maxTokens = over.maxTokens;
    if (over.cost !== undefined) model.cost = { ...builtIn.cost, ...over.cost };
  }
  return { model, source: "models.json" };
}

function customModel(provider: string, m: ModelConfig, config: ProviderConfig, sibling?: Model<Api>): Model<Api> {
  const model: Model<Api> = {
    id: m.id,
    name: m.name ?? m.id,
    api: (m.api ?? config.api ?? sibling?.api) as Api,
    provider,
    baseUrl: config.baseUrl ?? sibling?.baseUrl ?? "",
    reasoning: m.reasoning ?? false,
    input: m.input ?? ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, ...m.cost },
    contextWindow: m.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    maxTokens: m.maxTokens ?? DEFAULT_MAX_TOKENS,
  };
  if (m.thinkingLevelMap !== undefined) model.thinkingLevelMap = m.thinkingLevelMap;
  setCompat(model, undefined, config.compat, m.compat);
  return model;
}

function setCompat(model: Model<Api>, ...layers: (Record<string, unknown> | object | undefined)[]): void {
  if (layers.every((l) => l === undefined)) return;
  // Merged per field, later layers winning, as pi merges provider compat under model compat.
  (model as { compat?: unknown }).compat = Object.assign({}, ...layers.filter((l) => l !== undefined));
}

function unknownProvider(choice: ModelChoice, modelsFile: ModelsFile | null): Error {
  const custom = modelsFile ? [...modelsFile.providers.keys()] : [];
  const where = modelsFile ? `models.json (${modelsFile.path}): ${custom.join(", ") || "none"}; ` : "";
  return new Error(
    `unknown model provider "${choice.provider}" in "${formatModelRef(choice)}"; ` +
      `${where}built-in: ${(getProviders() as string[]).join(", ")}`,
  );
}

function unknownId(choice: ModelChoice, entries: Entry[]): Error {
  const ids = entries.map((e) => e.model.id);
  const shown = ids.slice(0, IDS_SHOWN).join(", ");
  const more = ids.length > IDS_SHOWN ? `, ... ${ids.length - IDS_SHOWN} more` : "";
  return new Error(
    `unknown model "${choice.id}" for provider "${choice.provider}"; its models: ${shown || "none"}${more}`,
  );
}

/** Finds the model and resolves its key and headers (running "!command" values). */
export async function resolveModel(
  choice: ModelChoice,
  o: { modelsFile: ModelsFile | null; env: Env },
): Promise<ResolvedModel> {
  const entries = providerModels(choice.provider, o.modelsFile);
  if (entries === undefined) throw unknownProvider(choice, o.modelsFile);
  const entry = entries.find((e) => e.model.id === choice.id);
  if (entry === undefined) throw unknownId(choice, entries);
  const config = o.modelsFile?.providers.get(choice.provider);
  const file = o.modelsFile?.path ?? "models.json";
  const field = (name: string) => `providers.${choice.provider}.${name} in ${file}`;

  let apiKey: string | undefined;
  let keyHint: string;
  if (config?.apiKey !== undefined) {
    apiKey = await resolveConfigValue(config.apiKey, o.env, field("apiKey"));
    keyHint = /^[A-Z][A-Z0-9_]*$/.test(config.apiKey) ? config.apiKey : field("apiKey");
  } else if (isBuiltInProvider(choice.provider)) {
    apiKey = builtInKey(choice.provider, o.env);
    keyHint = keyVarHint(choice.provider) ?? `the ${choice.provider} credentials`;
    if (apiKey === undefined) throw missingKey(choice, keyVarsOf(choice.provider), file);
  } else {
    throw new Error(
      `provider "${choice.provider}" in ${file} has no "apiKey": add one ` +
        "(a local server that ignores keys takes any value, as in pi's Ollama example)",
    );
  }

  // models.json headers resolve like apiKey (a secret may sit in a header); the model's own
  // (a custom model's, or a modelOverrides entry's) win over the provider's.
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(config?.headers ?? {})) {
    headers[name] = await resolveConfigValue(value, o.env, field(`headers.${name}`));
  }
  const own = modelHeaders(config, choice.id, entry.source);
  for (const [name, value] of Object.entries(own?.headers ?? {})) {
    headers[name] = await resolveConfigValue(value, o.env, field(`${own?.at}.headers.${name}`));
  }
  if (config?.authHeader === true && apiKey !== undefined) headers["Authorization"] = `Bearer ${apiKey}`;
  const resolved: ResolvedModel = { model: entry.model, apiKey, source: entry.source, keyHint };
  if (Object.keys(headers).length > 0) resolved.headers = headers;
  return resolved;
}

function modelHeaders(config: ProviderConfig | undefined, id: string, source: string) {
  if (config === undefined || source !== "models.json") return undefined;
  const i = config.models?.findIndex((m) => m.id === id) ?? -1;
  if (i >= 0) return { headers: config.models?.[i]?.headers, at: `models[${i}]` };
  return { headers: config.modelOverrides?.[id]?.headers, at: `modelOverrides.${id}` };
}

function missingKey(choice: ModelChoice, vars: string[], file: string): Error {
  const hint = keyVarHint(choice.provider);
  if (hint === undefined) {
    return new Error(
      `no credentials for provider "${choice.provider}": configure them as pi-ai documents for it, ` +
        `or set "apiKey" for "${choice.provider}" in ${file}`,
    );
  }
  const others = vars.filter((v) => v !== hint);
  const alt = others.length > 0 ? ` (or ${others.join(", ")})` : "";
  return new Error(
    `no API key for ${formatModelRef(choice)}: set ${hint}${alt}, or "apiKey" for "${choice.provider}" in ${file}`,
  );
}

/** Every model octet knows, models.json ones included; `hasKey` tells configured from not (no command runs). */
export function listModels(o: { modelsFile: ModelsFile | null; env: Env; provider?: string }): ModelListing[] {
  const names = o.provider !== undefined ? [o.provider] : providerNames(o.modelsFile);
  const rows: ModelListing[] = [];
  for (const provider of names) {
    const entries = providerModels(provider, o.modelsFile);
    if (entries === undefined) throw unknownProvider({ provider, id: "" }, o.modelsFile);
    const config = o.modelsFile?.providers.get(provider);
    const hasKey =
      config?.apiKey !== undefined || (isBuiltInProvider(provider) && builtInKey(provider, o.env) !== undefined);
    for (const { model, source } of entries) {
      rows.push({ provider, id: model.id, name: model.name, contextWindow: model.contextWindow, source, hasKey });
    }
  }
  return rows;
}

/** The key and headers as pi-ai stream options (spread them into stream()'s options). */
export function requestOptions(resolved: ResolvedModel): { apiKey?: string; headers?: Record<string, string> } {
  const o: { apiKey?: string; headers?: Record<string, string> } = {};
  if (resolved.apiKey !== undefined) o.apiKey = resolved.apiKey;
  if (resolved.headers !== undefined) o.headers = resolved.headers;
  return o;
}
