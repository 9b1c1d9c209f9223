// $OCTET_HOME/models.json in pi's shape (pi's docs/models.md), so a pi user's file works unchanged:
// {providers: {name: {baseUrl, api, apiKey, headers, authHeader, compat, models: [{id, ...}],
// modelOverrides}}}. Loading checks the shape and names the path of what is wrong; defaults are
// applied when a model is built (resolve.ts), and unknown fields are ignored, since pi's files
// carry fields octet does not use (thinkingLevelMap and whatever pi adds later).
import { existsSync, readFileSync } from "node:fs";
import { getApiProviders, getProviders } from "@mariozechner/pi-ai";

/** One entry of a provider's `models` (or a `modelOverrides` value, where `id` is absent). */
export interface ModelConfig {
  id: string;
  name?: string;
  api?: string;
  reasoning?: boolean;
  input?: ("text" | "image")[];
  contextWindow?: number;
  maxTokens?: number;
  cost?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
  compat?: Record<string, unknown>;
  headers?: Record<string, string>;
  thinkingLevelMap?: Record<string, string | null>;
}

export interface ProviderConfig {
  baseUrl?: string;
  api?: string;
  /** "!command", an environment variable's name, or the key itself (pi's value resolution). */
  apiKey?: string;
  headers?: Record<string, string>;
  authHeader?: boolean;
  compat?: Record<string, unknown>;
  models?: ModelConfig[];
  modelOverrides?: Record<string, Omit<ModelConfig, "id">>;
}

export interface ModelsFile {
  path: string;
  providers: Map<string, ProviderConfig>;
}

/** The APIs pi-ai can stream (its registry), e.g. openai-completions, anthropic-messages. */
export function supportedApis(): string[] {
  return getApiProviders().map((p) => p.api);
}

export function isBuiltInProvider(name: string): boolean {
  return (getProviders() as string[]).includes(name);
}

/** Reads a models.json; null when the file does not exist. Errors name the file and the path inside it. */
export function loadModelsFile(path: string): ModelsFile | null {
  if (!existsSync(path)) return null;
  const text = readFileSync(path, "utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${path}: not valid JSON${where(text, e)}: ${(e as Error).message}`);
  }
  return parseModelsFile(raw, path);
}

/** Checks an already-parsed models.json value (the shape only; keys and commands are resolved later). */
export function parseModelsFile(raw: unknown, path: string): ModelsFile {
  const fail = (at: string, what: string): never => {
    throw new Error(`${path}: ${at}: ${what}`);
  };
  if (!isObject(raw)) fail("(top level)", 'expected an object like {"providers": {...}}');
  const root = raw as Record<string, unknown>;
  const providers = new Map<string, ProviderConfig>();
  if (root["providers"] === undefined) return { path, providers };
  if (!isObject(root["providers"])) fail("providers", "expected an object of providers by name");
  const apis = supportedApis();
  const checkApi = (at: string, api: unknown): void => {
    if (api === undefined) return;
    if (typeof api !== "string" || !apis.includes(api)) {
      fail(at, `unknown api ${JSON.stringify(api)}; supported: ${apis.join(", ")}`);
    }
  };
  for (const [name, value] of Object.entries(root["providers"] as Record<string, unknown>)) {
    const at = `providers.${name}`;
    if (name === "" || name.includes("/")) fail(at, 'a provider name must be non-empty and contain no "/"');
    if (!isObject(value)) fail(at, "expected an object");
    const p = value as Record<string, unknown>;
    optional(p, "baseUrl", "string", at, fail);
    optional(p, "apiKey", "string", at, fail);
    optional(p, "authHeader", "boolean", at, fail);
    checkApi(`${at}.api`, p["api"]);
    stringMap(p["headers"], `${at}.headers`, fail);
    if (p["compat"] !== undefined && !isObject(p["compat"])) fail(`${at}.compat`, "expected an object");
    const config = p as ProviderConfig;
    if (p["models"] !== undefined) {
      if (!Array.isArray(p["models"])) fail(`${at}.models`, "expected an array of models");
      (p["models"] as unknown[]).forEach((m, i) => {
        checkModel(m, `${at}.models[${i}]`, true, fail);
        checkApi(`${at}.models[${i}].api`, (m as Record<string, unknown>)["api"]);
      });
      if (!isBuiltInProvider(name)) {
        if (p["baseUrl"] === undefined) fail(`${at}.baseUrl`, `required: "${name}" is not a built-in provider`);
        (p["models"] as Record<string, unknown>[]).forEach((m, i) => {
          if (p["api"] === undefined && m["api"] === undefined) {
            fail(`${at}.models[${i}].api`, `required here or at ${at}.api; supported: ${apis.join(", ")}`);
          }
        });
      }
    }
    if (p["modelOverrides"] !== undefined) {
      if (!isObject(p["modelOverrides"])) fail(`${at}.modelOverrides`, "expected an object by model id");
      for (const [id, o] of Object.entries(p["modelOverrides"] as Record<string, unknown>)) {
        checkModel(o, `${at}.modelOverrides.${id}`, false, fail);
      }
    }
    providers.set(name, config);
  }
  return { path, providers };
}

type Fail = (at: string, what: string) => never;

function checkModel(m: unknown, at: string, needsId: boolean, fail: Fail): void {
  if (!isObject(m)) fail(at, "expected an object");
  const o = m as Record<string, unknown>;
  if (needsId && (typeof o["id"] !== "string" || o["id"] === "")) {
    fail(`${at}.id`, "required: the model id passed to the API (a non-empty string)");
  }
  optional(o, "name", "string", at, fail);
  optional(o, "reasoning", "boolean", at, fail);
  for (const key of ["contextWindow", "maxTokens"]) {
    const v = o[key];
    if (v !== undefined && !(typeof v === "number" && Number.isInteger(v) && v > 0)) {
      fail(`${at}.${key}`, `expected a whole number of tokens > 0, got ${JSON.stringify(v)}`);
    }
  }
  const input = o["input"];
  if (input !== undefined) {
    if (!Array.isArray(input) || input.some((x) => x !== "text" && x !== "image")) {
      fail(`${at}.input`, `expected an array of "text" and "image", got ${JSON.stringify(input)}`);
    }
  }
  const cost = o["cost"];
  if (cost !== undefined) {
    if (!isObject(cost)) fail(`${at}.cost`, "expected {input, output, cacheRead, cacheWrite} per million tokens");
    for (const [k, v] of Object.entries(cost as Record<string, unknown>)) {
      if (typeof v !== "number" || !(v >= 0))
        fail(`${at}.cost.${k}`, `expected a number >= 0, got ${JSON.stringify(v)}`);
    }
  }
  if (o["compat"] !== undefined && !isObject(o["compat"])) fail(`${at}.compat`, "expected an object");
  stringMap(o["headers"], `${at}.headers`, fail);
}

function optional(o: Record<string, unknown>, key: string, type: string, at: string, fail: Fail): void {
  if (o[key] !== undefined && typeof o[key] !== type) {
    fail(`${at}.${key}`, `expected a ${type}, got ${JSON.stringify(o[key])}`);
  }
}

function stringMap(v: unknown, at: string, fail: Fail): void {
  if (v === undefined) return;
  if (!isObject(v)) fail(at, "expected an object of header names to values");
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (typeof x !== "string") fail(`${at}.${k}`, `expected a string, got ${JSON.stringify(x)}`);
  }
}

function isObject(v: unknown): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// " at line L, column C" from a JSON.parse error: V8 names a character position, or none at the end of input.
function where(text: string, e: unknown): string {
  const message = (e as Error).message;
  const m = /position (\d+)/.exec(message);
  const pos = m ? Number(m[1]) : /end of JSON input/.test(message) ? text.length : undefined;
  if (pos === undefined) return "";
  const before = text.slice(0, pos);
  const line = before.split("\n").length;
  const column = pos - before.lastIndexOf("\n");
  return ` at line ${line}, column ${column}`;
}
