/**
 * `octet trace FILE`: a frame trace (--trace, transport/frame-trace.ts in @octet/host) made
 * readable, one line per frame: time, extension#generation, an arrow (→ host to extension,
 * ← extension to host), the method or the id answered, and the body trimmed to one line.
 * --only-extension and --only-method filter (a response goes with the method of its request);
 * --follow keeps reading as the file grows; --json prints the kept records as they are.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { TraceRecord } from "@octet/host";
import type { GlobalOptions } from "./args.js";
import { EXIT_OK, EXIT_UNAVAILABLE } from "./exit-codes.js";
import { paint, terminalSafe } from "./output.js";
import { UsageError } from "./usage-error.js";

/** How much of a body one line shows (--verbose shows it whole). */
const BODY_CHARS = 160;
const FOLLOW_POLL_MS = 200;

export async function traceCommand(options: GlobalOptions, args: string[]): Promise<number> {
  if (args.length !== 1)
    throw new UsageError(
      `trace takes one FILE (a --trace file); got ${args.length === 0 ? "none" : args.join(" ")}\n` +
        "e.g. octet --trace frames.jsonl call hello_world '{}' && octet trace frames.jsonl",
    );
  const file = args[0]!;
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (err) {
    process.stderr.write(`octet: trace ${file}: cannot read it (${(err as NodeJS.ErrnoException).code})\n`);
    return EXIT_UNAVAILABLE;
  }
  const view = new TraceView(options);
  let offset = 0;
  let rest = "";
  const drain = (): void => {
    const size = statSync(file).size;
    const buffer = Buffer.alloc(64 * 1024);
    while (offset < size) {
      const n = readSync(fd, buffer, 0, buffer.length, offset);
      if (n === 0) break;
      offset += n;
      const lines = (rest + buffer.subarray(0, n).toString("utf8")).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) view.line(line);
    }
  };
  drain();
  if (!options.follow) {
    if (rest.trim() !== "") view.line(rest);
    closeSync(fd);
    return EXIT_OK;
  }
  // Polling is the cheap, portable follow: fs.watch misses appends on some filesystems.
  await new Promise<void>((resolve) => {
    const timer = setInterval(drain, FOLLOW_POLL_MS);
    const stop = (): void => {
      clearInterval(timer);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  closeSync(fd);
  return EXIT_OK;
}

class TraceView {
  readonly #o: GlobalOptions;
  /** Per extension#generation and direction of the request: id → method, to name a response. */
  readonly #methods = new Map<string, string>();
  readonly #out = process.stdout;

  constructor(options: GlobalOptions) {
    this.#o = options;
  }

  line(text: string): void {
    if (text.trim() === "") return;
    let record: TraceRecord;
    try {
      record = JSON.parse(text) as TraceRecord;
    } catch {
      this.#out.write(`${paint("red", "(not a trace line)", this.#out)} ${terminalSafe(text.slice(0, BODY_CHARS))}\n`);
      return;
    }
    const method = this.#methodOf(record);
    if (this.#o.onlyExtensions.length > 0 && !this.#o.onlyExtensions.includes(record.extension)) return;
    if (this.#o.onlyMethods.length > 0 && !this.#o.onlyMethods.some((m) => methodMatches(m, method))) return;
    if (this.#o.json) {
      this.#out.write(`${JSON.stringify(record)}\n`);
      return;
    }
    const time = record.ts.slice(11, 23);
    const who = `${record.extension}#${record.generation}`;
    const arrow = record.dir === "out" ? "→" : "←";
    const [head, body] = describe(record, method);
    const shown = this.#o.verbose ? body : trim(body);
    this.#out.write(
      `${paint("dim", time, this.#out)} ${who} ${arrow} ${paint("cyan", head, this.#out)} ${terminalSafe(shown)}\n`,
    );
  }

  /** The frame's method; for a response, the method of the request it answers (seen earlier). */
  #methodOf(r: TraceRecord): string {
    const f = r.frame as Record<string, unknown> | undefined;
    if (typeof f !== "object" || f === null) return "";
    const key = (dir: string): string => `${r.extension}#${r.generation}${dir}${JSON.stringify(f["id"])}`;
    if (typeof f["method"] === "string") {
      if ("id" in f) this.#methods.set(key(r.dir), f["method"]);
      return f["method"];
    }
    // A response travels the other way from its request.
    const k = key(r.dir === "in" ? "out" : "in");
    const method = this.#methods.get(k) ?? "";
    this.#methods.delete(k);
    return method;
  }
}

/** METHOD matches exactly; "tool/*" matches every method under tool/. */
function methodMatches(filter: string, method: string): boolean {
  return filter.endsWith("*") ? method.startsWith(filter.slice(0, -1)) : method === filter;
}

function describe(r: TraceRecord, method: string): [string, string] {
  if (r.error !== undefined) return ["refused", r.error];
  const f = r.frame as Record<string, unknown> | undefined;
  // A line that is no JSON object: what a crafted or broken frame looked like (octet check sends some).
  if (typeof f !== "object" || f === null) return ["(not a frame)", JSON.stringify(r.frame) ?? ""];
  const id = "id" in f ? ` #${JSON.stringify(f["id"])}` : "";
  if (typeof f["method"] === "string") return [`${f["method"]}${id}`, JSON.stringify(f["params"] ?? null)];
  const answers = method ? ` (${method})` : "";
  if ("error" in f) return [`error${id}${answers}`, JSON.stringify(f["error"])];
  return [`result${id}${answers}`, JSON.stringify(f["result"] ?? null)];
}

function trim(body: string): string {
  return body.length > BODY_CHARS ? `${body.slice(0, BODY_CHARS - 1)}…` : body;
}
