/**
 * The first pass of `octet check`: what every extension must do whatever its tools. Initialize
 * answered and accepted by the host's own validator (INIT-*, TDEF-*), an unknown method refused
 * -32601 (ERR-01), bad params -32602 (ERR-02), every declared tool refusing arguments that are
 * not an object (CALL-01: `parameters` is an object schema, TDEF-07), a $/cancelRequest of an
 * unknown id ignored (FRAME-14). The hostile pass goes on on the same extension (hostile-pass.ts).
 *
 * No check runs a tool's code: every call the kit makes is one the SDK must refuse before the
 * handler, because a tool's effects are the author's, not the kit's, to trigger.
 */
import { bounds, isNegotiated, validateInitializeResult, type ToolDefinition } from "@octet/protocol";
import { GenerationCatalog } from "../generation/catalog.js";
import type { CheckLaunch } from "./launch.js";
import { brief, type Recorder } from "./report.js";
import type { Frame, WireProbe } from "./wire-probe.js";

/** How long an ordinary answer may take: generous for a loaded CI machine, and a bound all the same. */
export const ANSWER_MS = 5_000;
/** Tools the kit calls per extension: enough to find a handler that skips validation. */
const MAX_TOOLS_CALLED = 16;
export const UNKNOWN_METHOD = "octet_check/no_such_method";

/** The context of a model tool call for this extension's API version (CALL-01, CALL-05). */
export function callContext(l: CheckLaunch, generation: number): Frame {
  const context: Frame = { workspace: l.params.workspace, execution_scope: null, host: l.params.host };
  if (isNegotiated(l.manifest.api_version))
    context["resource_owner"] = {
      session_id: "octet-check",
      extension_instance_id: "octet-check",
      process_generation: generation,
    };
  return context;
}

/** Sends initialize and waits for the answer; null (with a failure recorded when `r`) if none came. */
export async function initialize(l: CheckLaunch, r: Recorder | null): Promise<Frame | null> {
  const id = l.probe.request("initialize", l.params);
  const within = bounds.INITIALIZE_TIMEOUT_MS;
  const title = "initialize is answered";
  try {
    const response = await l.probe.response(id, within);
    if (!("result" in response)) {
      r?.fail("INIT-01", title, "a result", `an error: ${brief(response["error"])}`);
      return null;
    }
    r?.pass("INIT-01", title, `a response within ${within} ms`, "answered");
    return response;
  } catch (err) {
    r?.fail("INIT-01", title, `a response within ${within} ms`, withStderr(l.probe, (err as Error).message));
    return null;
  }
}

/** The checks on a well-behaved host's requests; returns the answered tool names (null: no initialize). */
export async function wirePass(l: CheckLaunch, r: Recorder, generation: number): Promise<string[] | null> {
  const response = await initialize(l, r);
  if (response === null) return null;
  const tools = checkInitialize(l, r, response["result"]);
  const probe = l.probe;
  await expectError(probe, r, "ERR-01", "an unknown method is refused with -32601", UNKNOWN_METHOD, {}, -32601);
  const context = callContext(l, generation);
  await expectError(
    probe,
    r,
    "ERR-02",
    "tool/call without a name is refused with -32602",
    "tool/call",
    { arguments: {}, context },
    -32602,
  );
  for (const name of tools.slice(0, MAX_TOOLS_CALLED)) {
    await expectError(
      probe,
      r,
      "CALL-01",
      `tool ${name} refuses arguments that are not an object (-32602), before its handler runs`,
      "tool/call",
      { name, arguments: "not an object", context },
      -32602,
    );
  }
  if (isNegotiated(l.manifest.api_version)) {
    probe.notify("$/cancelRequest", { id: 987_654_321, reason: "user" });
    probe.notify("$/cancelRequest", { id: "octet-check-unknown", reason: "user" });
    await expectError(
      probe,
      r,
      "FRAME-14",
      "a $/cancelRequest for an unknown id is ignored: no answer, and the extension keeps serving",
      UNKNOWN_METHOD,
      {},
      -32601,
    );
  } else r.skip("FRAME-14", "$/cancelRequest of an unknown id", "API 0.1 has no request cancellation (CANCEL-01)");
  return tools;
}

/** INIT-06/07/08/17 and TDEF-01 through the host's own validator; returns the tool names. */
function checkInitialize(l: CheckLaunch, r: Recorder, result: unknown): string[] {
  const api = l.manifest.api_version;
  const shapeId = isNegotiated(api) ? "INIT-17" : "INIT-07";
  const checked = validateInitializeResult(result, {
    api,
    contributes: { tools: l.declared.tools, commands: l.declared.commands },
    ...(l.offered ? { offered: l.offered } : {}),
  });
  const problems = checked.ok ? [] : checked.problems;
  const about = (test: (p: string) => boolean): string | null => {
    const hits = problems.filter(test);
    return hits.length > 0 ? hits.join("; ") : null;
  };
  const isTool = (p: string): boolean => /^tools\[/.test(p);
  const isCatalog = (p: string): boolean => /^(tools|commands)\b/.test(p) && !isTool(p);
  r.check(
    "INIT-06",
    "the answered api_version is the manifest's",
    `"${api}"`,
    about((p) => p.startsWith("api_version")),
  );
  r.check(
    "INIT-08",
    "the answered tools and commands are the declared ones",
    `tools ${brief(l.declared.tools)}, commands ${brief(l.declared.commands)}`,
    about(isCatalog),
  );
  r.check(
    shapeId,
    `the initialize result has the API ${api} shape${isNegotiated(api) ? " and a valid protocol selection" : ""}`,
    isNegotiated(api)
      ? "api_version, tools, commands, protocol{version, features, limits}"
      : "api_version, tools, commands",
    about((p) => !p.startsWith("api_version") && !isTool(p) && !isCatalog(p)),
  );
  const raw = (result as { tools?: unknown } | null)?.tools;
  const defs = Array.isArray(raw) ? (raw as ToolDefinition[]) : [];
  let compile: string | null = null;
  if (checked.ok) {
    try {
      new GenerationCatalog().accept(checked.value.result.tools);
    } catch (err) {
      compile = (err as Error).message;
    }
  }
  const toolProblem = about(isTool) ?? compile;
  r.check(
    "TDEF-01",
    "every tool definition is valid: name, description, an object schema that compiles",
    `${defs.length} valid definition(s)`,
    toolProblem,
    `${defs.length} valid definition(s)`,
  );
  return defs.map((d) => d?.name).filter((n): n is string => typeof n === "string");
}

/** Sends a request and records whether it is answered with the error `code`. */
export async function expectError(
  probe: WireProbe,
  r: Recorder,
  id: string,
  title: string,
  method: string,
  params: unknown,
  code: number,
): Promise<boolean> {
  const sent = probe.request(method, params);
  const expected = `an error response with code ${code}`;
  try {
    const response = await probe.response(sent, ANSWER_MS);
    const error = response["error"] as { code?: unknown } | undefined;
    if (error?.code === code) {
      r.pass(id, title, expected, `${code}`);
      return true;
    }
    r.fail(id, title, expected, error ? `error ${brief(error)}` : `a result: ${brief(response["result"])}`);
  } catch (err) {
    r.fail(id, title, expected, withStderr(probe, (err as Error).message));
  }
  return false;
}

/** SHUT-01 and SHUT-02: shutdown acknowledged with {}, then an exit within the stage deadline. */
export async function shutdown(probe: WireProbe, r: Recorder, suffix: string): Promise<void> {
  const stage = bounds.SHUTDOWN_STAGE_TIMEOUT_MS;
  const id = probe.request("shutdown", {});
  try {
    const ack = await probe.response(id, stage);
    const result = ack["result"];
    const empty = typeof result === "object" && result !== null && Object.keys(result).length === 0;
    r.check(
      "SHUT-01",
      `shutdown is acknowledged${suffix}`,
      `result {} within ${stage} ms`,
      empty ? null : `${"error" in ack ? "error" : "result"} ${brief(ack["error"] ?? result)}`,
    );
  } catch (err) {
    r.fail("SHUT-01", `shutdown is acknowledged${suffix}`, `result {} within ${stage} ms`, (err as Error).message);
  }
  try {
    const exit = await probe.exited(stage);
    r.pass(
      "SHUT-02",
      `the extension exits after the shutdown ack${suffix}`,
      `an exit within ${stage} ms`,
      describe(exit),
    );
  } catch (err) {
    r.fail(
      "SHUT-02",
      `the extension exits after the shutdown ack${suffix}`,
      `an exit within ${stage} ms`,
      (err as Error).message,
    );
  }
}

/** FRAME-01..03 over everything the extension wrote in this pass. */
export function stdoutChecks(probe: WireProbe, r: Recorder, suffix: string): void {
  const envelope = probe.violations.filter((v) => v.kind === "envelope").map((v) => v.text);
  const lines = probe.violations.filter((v) => v.kind === "line").map((v) => v.text);
  const seen = `${probe.received} frame(s), all valid`;
  r.check(
    "FRAME-01",
    `every frame is a JSON-RPC 2.0 envelope, each response answering one request once${suffix}`,
    "valid envelopes",
    envelope[0] ?? null,
    seen,
  );
  r.check(
    "FRAME-03",
    `stdout carries one JSON frame per LF-terminated line and nothing else${suffix}`,
    "protocol frames only (FRAME-02)",
    lines[0] ?? null,
    seen,
  );
}

function describe(exit: { code: number | null; signal: string | null }): string {
  return exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

export function withStderr(probe: WireProbe, message: string): string {
  const tail = probe.stderrTail.trim().split("\n").slice(-3).join(" | ");
  return tail ? `${message}; stderr: ${tail.slice(-300)}` : message;
}
