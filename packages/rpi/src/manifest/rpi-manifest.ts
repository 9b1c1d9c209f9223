/**
 * pi-extension.json: its schema and the pure validation of manifest text into an RpiManifest
 * (RPI-02..14). Every problem is an RpiManifestError whose message names the file, the key, the
 * offending value and the rule; all problems are collected, not only the first. Nothing here
 * touches the filesystem: the bounded read is load-manifest.ts, the containment and file checks
 * are resolve-launch.ts, the child environment is environment.ts.
 */
import { duplicateTopLevelKeys, isPlainObject } from "@octet/protocol";
import { quote, relativePathProblem, scriptExtensionProblem, showValue } from "./relative-path.js";

export const RPI_MANIFEST_FILE = "pi-extension.json";
export const RPI_MANIFEST_SCHEMA_VERSION = 1;

export const RPI_CAPABILITIES = [
  "commands",
  "tools",
  "event_hooks",
  "message_renderers",
  "provider_metadata",
  "session_actions",
  "ui",
  "overlays",
] as const;
export type RpiCapability = (typeof RPI_CAPABILITIES)[number];

export const RPI_UI_CAPABILITIES = [
  "select",
  "confirm",
  "input",
  "editor",
  "notify",
  "status",
  "widget",
  "title",
  "set_editor_text",
  "overlay",
] as const;
export type RpiUiCapability = (typeof RPI_UI_CAPABILITIES)[number];

/**
 * "process": an executable that speaks the frames itself; "quickjs": a script entry in the host's
 * sandbox; "node": a script entry in a Node child process with the full pi API (src/node/).
 */
export const RPI_RUNTIMES = ["process", "quickjs", "node"] as const;
export type RpiRuntime = (typeof RPI_RUNTIMES)[number];

/** Capabilities whose factories cannot cross the protocol, so a QuickJS entry cannot have them (RPI-12). */
export const RPI_QUICKJS_EXCLUDED_CAPABILITIES: readonly RpiCapability[] = ["message_renderers", "provider_metadata"];

/**
 * What a node entry cannot have. RPI-12 binds QuickJS only; in the node runtime (octet's own)
 * pi's registerProvider crosses as data (the prelude refuses streamSimple, which is code), so
 * provider_metadata is allowed there.
 */
export const RPI_NODE_EXCLUDED_CAPABILITIES: readonly RpiCapability[] = ["message_renderers"];

/** ASCII letters, digits, "_", "-" and "." (RPI-04); "." and ".." are refused separately. */
export const RPI_ID_PATTERN = /^[A-Za-z0-9_.-]+$/;
/** Ids name directories, environment values and log lines, so they are kept short. */
export const RPI_MAX_ID_CHARS = 64;
/** At most this many problems are reported per manifest, plus one line that counts the rest. */
export const RPI_MAX_MANIFEST_ERRORS = 32;

export interface RpiManifest {
  schemaVersion: 1;
  id: string;
  /** "process" when the manifest omits runtime (the original executable shape). */
  runtime: RpiRuntime;
  /** Process only: the path as written, relative to the manifest directory. */
  executable?: string;
  /** Process only: argv after the executable; [] when omitted and always [] for QuickJS. */
  arguments: string[];
  /** QuickJS and node only: the .js/.mjs path as written, relative to the manifest directory. */
  entry?: string;
  capabilities: RpiCapability[];
  uiCapabilities: RpiUiCapability[];
}

export interface RpiManifestError {
  /** The manifest file the problem is in. */
  file: string;
  /** The key, with an index for array entries ("capabilities[2]"); "" for the whole document. */
  key: string;
  /** `<file>: key "<key>": <the value and the rule it breaks>`. */
  message: string;
}

export type RpiManifestResult = { ok: true; manifest: RpiManifest } | { ok: false; errors: RpiManifestError[] };

const KEYS = ["schemaVersion", "id", "runtime", "executable", "arguments", "entry", "capabilities", "uiCapabilities"];

class Collector {
  readonly errors: RpiManifestError[] = [];
  private dropped = 0;
  constructor(readonly file: string) {}

  add(key: string, text: string): void {
    if (this.errors.length >= RPI_MAX_MANIFEST_ERRORS) {
      this.dropped++;
      return;
    }
    const where = key === "" ? "" : ` key ${JSON.stringify(key)}:`;
    this.errors.push({ file: this.file, key, message: `${this.file}:${where} ${text}` });
  }

  finish(): RpiManifestError[] {
    if (this.dropped > 0) {
      this.errors.push({
        file: this.file,
        key: "",
        message:
          `${this.file}: ${this.dropped} more problem(s) not shown (at most ${RPI_MAX_MANIFEST_ERRORS} are ` +
          `reported)`,
      });
    }
    return this.errors;
  }
}

/** Reports one problem and yields null, so a check can `return reject(...)`. */
function reject(c: Collector, key: string, text: string): null {
  c.add(key, text);
  return null;
}

function checkId(c: Collector, v: unknown): string | null {
  if (v === undefined) return reject(c, "id", 'is required (ASCII letters, digits, "_", "-" and ".")');
  if (typeof v !== "string") return reject(c, "id", `must be a string, got ${showValue(v)}`);
  if (v === "") return reject(c, "id", 'must be a non-empty string (ASCII letters, digits, "_", "-" and ".")');
  if (v.length > RPI_MAX_ID_CHARS)
    return reject(c, "id", `${quote(v)} is ${v.length} characters, over the ${RPI_MAX_ID_CHARS}-character limit`);
  if (!RPI_ID_PATTERN.test(v))
    return reject(c, "id", `${quote(v)} must contain only ASCII letters, digits, "_", "-" and "."`);
  if (v === "." || v === "..")
    return reject(c, "id", `${quote(v)} is not allowed: it names a directory, not an extension`);
  return v;
}

/** A list of unique values from `allowed`; bad entries are reported one by one and dropped. */
function enumList<T extends string>(c: Collector, key: string, v: unknown, allowed: readonly T[]): T[] | null {
  if (!Array.isArray(v)) return reject(c, key, `must be an array of strings, got ${showValue(v)}`);
  const out: T[] = [];
  v.forEach((item: unknown, i) => {
    const itemKey = `${key}[${i}]`;
    if (typeof item !== "string") return c.add(itemKey, `must be a string, got ${showValue(item)}`);
    if (!(allowed as readonly string[]).includes(item))
      return c.add(itemKey, `unknown value ${quote(item)} (allowed: ${allowed.join(", ")})`);
    if ((out as string[]).includes(item))
      return c.add(itemKey, `duplicate value ${quote(item)} (values must be unique)`);
    out.push(item as T);
  });
  return out;
}

function checkPath(c: Collector, key: "executable" | "entry", v: unknown): string | null {
  if (typeof v !== "string") return reject(c, key, `must be a relative path string, got ${showValue(v)}`);
  const problem = relativePathProblem(v);
  if (problem !== null) return reject(c, key, problem);
  if (key === "entry") {
    const ext = scriptExtensionProblem(v);
    if (ext !== null) return reject(c, key, ext);
  }
  return v;
}

function checkArguments(c: Collector, v: unknown): string[] {
  if (!Array.isArray(v)) return (c.add("arguments", `must be an array of strings, got ${showValue(v)}`), []);
  const out: string[] = [];
  v.forEach((item: unknown, i) => {
    if (typeof item !== "string") c.add(`arguments[${i}]`, `must be a string, got ${showValue(item)}`);
    else if (item.includes("\0"))
      c.add(`arguments[${i}]`, `${quote(item)} must not contain a NUL character (argv cannot carry one)`);
    else out.push(item);
  });
  return out;
}

/** The runtime-specific rules: which path field, arguments and capabilities each runtime allows. */
function checkRuntimeShape(
  c: Collector,
  o: Record<string, unknown>,
  runtime: RpiRuntime | null,
  capabilities: RpiCapability[] | null,
): void {
  const hasExe = o["executable"] !== undefined;
  const hasEntry = o["entry"] !== undefined;
  if (hasExe && hasEntry) {
    c.add("entry", 'a manifest has either "executable" (runtime "process") or "entry" (runtime "quickjs"), not both');
  }
  if (runtime === "process") {
    const said = o["runtime"] === undefined ? 'runtime is omitted, which means "process"' : 'runtime is "process"';
    if (hasEntry && !hasExe)
      c.add("entry", `is QuickJS-only but ${said}; a script entry needs "runtime": "quickjs" (or "node")`);
    if (!hasExe && !hasEntry) c.add("executable", `is required: ${said}, which launches an executable`);
  }
  if (runtime === "node") {
    // A Node entry has the QuickJS entry's rules: the same prelude runs it, in a child process.
    if (hasExe && !hasEntry)
      c.add("executable", 'is process-only but runtime is "node"; a node manifest names an "entry" (.js or .mjs)');
    if (!hasExe && !hasEntry) c.add("entry", 'is required: runtime is "node", which runs a .js or .mjs entry');
    if (o["arguments"] !== undefined)
      c.add("arguments", `is process-only and node manifests reject it, got ${showValue(o["arguments"])}`);
    capabilities?.forEach((cap, i) => {
      if (RPI_NODE_EXCLUDED_CAPABILITIES.includes(cap))
        c.add(
          `capabilities[${i}]`,
          `${quote(cap)} is not available to node entries: its factories cannot cross the ` + `extension protocol`,
        );
    });
  }
  if (runtime === "quickjs") {
    if (hasExe && !hasEntry)
      c.add(
        "executable",
        'is process-only but runtime is "quickjs"; a QuickJS manifest names an "entry" (.js or .mjs)',
      );
    if (!hasExe && !hasEntry) c.add("entry", 'is required: runtime is "quickjs", which runs a .js or .mjs entry');
    if (o["arguments"] !== undefined) {
      c.add(
        "arguments",
        `is process-only and QuickJS manifests reject it (even an empty array), got ${showValue(o["arguments"])}`,
      );
    }
    capabilities?.forEach((cap, i) => {
      if (RPI_QUICKJS_EXCLUDED_CAPABILITIES.includes(cap)) {
        c.add(
          `capabilities[${i}]`,
          `${quote(cap)} is not available to QuickJS entries: its factories cannot cross the extension protocol`,
        );
      }
    });
  }
}

/**
 * Validates pi-extension.json text (see the module contract). `file` only names the manifest in
 * messages. Fails closed: invalid JSON, duplicate top-level keys, unknown keys and every rule of
 * RPI-03..14 that can be checked without the filesystem.
 */
export function parseRpiManifest(text: string, file: string): RpiManifestResult {
  const c = new Collector(file);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    c.add("", `is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
    return { ok: false, errors: c.finish() };
  }
  if (!isPlainObject(doc)) {
    c.add("", `must be a JSON object, got ${showValue(doc)}`);
    return { ok: false, errors: c.finish() };
  }
  for (const key of duplicateTopLevelKeys(text)) {
    c.add(
      key,
      "appears more than once; duplicate keys are refused because JSON.parse would silently keep the last one",
    );
  }
  for (const key of Object.keys(doc)) {
    if (KEYS.includes(key)) continue;
    const env = /^env/i.test(key)
      ? "; there is no environment field: the child gets only the PI_EXTENSION_* variables"
      : "";
    c.add(key, `unknown key (allowed: ${KEYS.join(", ")})${env}`);
  }

  const sv = doc["schemaVersion"];
  if (sv === undefined) c.add("schemaVersion", `is required and must be ${RPI_MANIFEST_SCHEMA_VERSION}`);
  else if (sv !== RPI_MANIFEST_SCHEMA_VERSION)
    c.add("schemaVersion", `must be the number ${RPI_MANIFEST_SCHEMA_VERSION}, got ${showValue(sv)}`);

  const id = checkId(c, doc["id"]);

  const rv = doc["runtime"];
  let runtime: RpiRuntime | null = "process";
  if (rv !== undefined && rv !== "process" && rv !== "quickjs" && rv !== "node") {
    c.add(
      "runtime",
      `must be "process" (or omitted) for an executable or "quickjs" for a script entry, got ${showValue(rv)}` +
        ` ("node" runs a script entry in a Node child process)`,
    );
    runtime = null;
  } else if (rv === "quickjs" || rv === "node") runtime = rv;

  const executable = doc["executable"] === undefined ? undefined : checkPath(c, "executable", doc["executable"]);
  const entry = doc["entry"] === undefined ? undefined : checkPath(c, "entry", doc["entry"]);
  const script = runtime === "quickjs" || runtime === "node";
  const args = !script && doc["arguments"] !== undefined ? checkArguments(c, doc["arguments"]) : [];

  let capabilities: RpiCapability[] | null = null;
  if (doc["capabilities"] === undefined)
    c.add("capabilities", `is required: one or more of ${RPI_CAPABILITIES.join(", ")}`);
  else {
    capabilities = enumList(c, "capabilities", doc["capabilities"], RPI_CAPABILITIES);
    if (Array.isArray(doc["capabilities"]) && doc["capabilities"].length === 0) {
      c.add("capabilities", `is empty; list one or more of ${RPI_CAPABILITIES.join(", ")}`);
    }
  }

  const uiCapabilities =
    doc["uiCapabilities"] === undefined
      ? []
      : enumList(c, "uiCapabilities", doc["uiCapabilities"], RPI_UI_CAPABILITIES);
  if (capabilities !== null && uiCapabilities !== null) {
    const ui = capabilities.includes("ui");
    const rawUi = doc["uiCapabilities"];
    const declared = Array.isArray(rawUi) && rawUi.length > 0;
    if (ui && !declared) {
      c.add(
        "uiCapabilities",
        `must list one or more of ${RPI_UI_CAPABILITIES.join(", ")} because capabilities lists "ui", got ` +
          `${showValue(rawUi)}`,
      );
    }
    if (!ui && declared) {
      c.add(
        "uiCapabilities",
        `is not empty (${showValue(rawUi)}) but capabilities does not list "ui"; add "ui" or remove the uiCapabilities`,
      );
    }
  }

  checkRuntimeShape(c, doc, runtime, capabilities);

  const errors = c.finish();
  if (errors.length > 0 || id === null || runtime === null || capabilities === null || uiCapabilities === null) {
    return { ok: false, errors };
  }
  const manifest: RpiManifest = { schemaVersion: 1, id, runtime, arguments: args, capabilities, uiCapabilities };
  if (typeof executable === "string") manifest.executable = executable;
  if (typeof entry === "string") manifest.entry = entry;
  return { ok: true, manifest };
}
