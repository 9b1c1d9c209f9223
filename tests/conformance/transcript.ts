/**
 * Transcript files (README.md, "Transcripts"): loading and the static check of their shape. A
 * transcript is one requirement: {id, title, api, steps}, stored as transcripts/<id>.json. Every
 * problem in every file is reported at once, with its file and step, before anything runs.
 */
import { readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { API_VERSIONS, TEMPLATE_VALUE_NAMES, type ApiVersion } from "./contract.js";
import { checkPattern, checkTemplate } from "./pattern.js";

export type Step = Record<string, unknown>;

export interface Transcript {
  id: string;
  title: string;
  api: ApiVersion[];
  steps: Step[];
  file: string;
}

/** The verbs of a step (exactly one per step) and the options each accepts besides "api" and "note". */
const VERBS: Record<string, readonly string[]> = {
  initialize: ["result", "strict", "within_ms"],
  request: ["as"],
  notify: [],
  send: [],
  send_raw: [],
  expect: ["as", "strict", "within_ms"],
  refute: [],
  respond: ["result", "error"],
  close_stdin: [],
  expect_exit: ["within_ms"],
};
const COMMON = ["api", "note"];

export const ID_PATTERN = /^[A-Z][A-Z0-9]*-\d+[a-z]?$/;

export function loadTranscripts(dir: string): Transcript[] {
  const problems: string[] = [];
  const transcripts: Transcript[] = [];
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith(".json"))
    .sort()) {
    const file = join(dir, name);
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(file, "utf8"));
    } catch (err) {
      problems.push(`${name}: not JSON (${(err as Error).message})`);
      continue;
    }
    const t = checkTranscript(value, basename(name, ".json"), problems);
    if (t) transcripts.push({ ...t, file });
  }
  if (problems.length > 0) throw new Error(`invalid conformance transcripts:\n  ${problems.join("\n  ")}`);
  return transcripts;
}

function checkTranscript(value: unknown, stem: string, problems: string[]): Omit<Transcript, "file"> | null {
  const where = `${stem}.json`;
  const before = problems.length;
  if (!isObject(value)) {
    problems.push(`${where}: expected an object {id, title, api, steps}`);
    return null;
  }
  const { id, title, api, steps } = value;
  if (typeof id !== "string" || !ID_PATTERN.test(id))
    problems.push(`${where}: "id" must be a requirement ID such as INIT-07, got ${JSON.stringify(id)}`);
  else if (id !== stem) problems.push(`${where}: "id" is ${id} but the file is named ${stem}.json`);
  if (typeof title !== "string" || title.trim() === "") problems.push(`${where}: "title" must be a non-empty string`);
  if (!Array.isArray(api) || api.length === 0 || !api.every((a) => (API_VERSIONS as readonly unknown[]).includes(a))) {
    problems.push(`${where}: "api" must be a non-empty subset of ${JSON.stringify(API_VERSIONS)}`);
  }
  const extra = Object.keys(value).filter((k) => !["id", "title", "api", "steps", "note"].includes(k));
  if (extra.length > 0) problems.push(`${where}: unknown member(s) ${extra.join(", ")}`);
  if (!Array.isArray(steps) || steps.length === 0) problems.push(`${where}: "steps" must be a non-empty array`);
  else steps.forEach((s, i) => checkStep(s, `${where} step ${i + 1}`, problems));
  if (problems.length > before) return null;
  return { id: id as string, title: title as string, api: api as ApiVersion[], steps: steps as Step[] };
}

function checkStep(step: unknown, where: string, problems: string[]): void {
  if (!isObject(step)) return void problems.push(`${where}: a step must be an object`);
  const verbs = Object.keys(step).filter((k) => k in VERBS);
  if (verbs.length !== 1)
    return void problems.push(
      `${where}: a step needs exactly one of ${Object.keys(VERBS).join(", ")}; it ` +
        `has ${verbs.length === 0 ? "none" : verbs.join(", ")}`,
    );
  const verb = verbs[0] as string;
  const allowed = [verb, ...(VERBS[verb] ?? []), ...COMMON];
  const extra = Object.keys(step).filter((k) => !allowed.includes(k));
  if (extra.length > 0) problems.push(`${where}: ${verb} does not take ${extra.join(", ")}`);
  const arg = step[verb];
  if (
    step["api"] !== undefined &&
    (!Array.isArray(step["api"]) || !step["api"].every((a) => (API_VERSIONS as readonly unknown[]).includes(a)))
  ) {
    problems.push(`${where}: "api" must be a subset of ${JSON.stringify(API_VERSIONS)}`);
  }
  for (const key of ["as", "strict", "within_ms"] as const) {
    const v = step[key];
    if (v === undefined) continue;
    const ok =
      key === "as"
        ? typeof v === "string" && /^[\w.-]+$/.test(v)
        : key === "strict"
          ? typeof v === "boolean"
          : Number.isInteger(v) && (v as number) > 0 && (v as number) <= 30_000;
    if (!ok) problems.push(`${where}: bad "${key}" ${JSON.stringify(v)}`);
  }
  switch (verb) {
    case "initialize":
      if (!isObject(arg)) problems.push(`${where}: initialize takes an object of overrides ({} for none)`);
      else checkTemplate(arg, `${where}.initialize`, problems, TEMPLATE_VALUE_NAMES);
      if (step["result"] !== undefined) checkPattern(step["result"], `${where}.result`, problems);
      return;
    case "request":
    case "notify":
      if (!isObject(arg) || typeof arg["method"] !== "string")
        problems.push(`${where}: ${verb} takes {method, params?}`);
      else {
        const keys = Object.keys(arg).filter((k) => k !== "method" && k !== "params");
        if (keys.length > 0)
          problems.push(
            `${where}: ${verb} takes {method, params?}, not ${keys.join(", ")} (use "send" for a crafted frame)`,
          );
        checkTemplate(arg, `${where}.${verb}`, problems, TEMPLATE_VALUE_NAMES);
      }
      return;
    case "send":
      return checkTemplate(arg, `${where}.send`, problems, TEMPLATE_VALUE_NAMES);
    case "send_raw":
      if (typeof arg !== "string") problems.push(`${where}: send_raw takes the exact text to write`);
      return;
    case "expect":
    case "refute":
      return checkPattern(arg, `${where}.${verb}`, problems);
    case "respond": {
      if (typeof arg !== "string")
        problems.push(`${where}: respond takes the label of an expect step that matched a request`);
      const hasResult = step["result"] !== undefined;
      const hasError = step["error"] !== undefined;
      if (hasResult === hasError) problems.push(`${where}: respond needs exactly one of result or error`);
      if (
        hasError &&
        (!isObject(step["error"]) ||
          !Number.isInteger(step["error"]["code"]) ||
          typeof step["error"]["message"] !== "string")
      ) {
        problems.push(`${where}: error must be {code: integer, message: string}`);
      }
      checkTemplate(step["result"] ?? step["error"], `${where}.respond`, problems, TEMPLATE_VALUE_NAMES);
      return;
    }
    case "close_stdin":
      if (arg !== true) problems.push(`${where}: close_stdin takes true`);
      return;
    case "expect_exit":
      if (arg !== null && !Number.isInteger(arg))
        problems.push(`${where}: expect_exit takes an exit code (or null for any)`);
      return;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
