/**
 * `/extensions show NAME [ACTION]` in the shell (W 2.5): the newest presentation snapshot the
 * extension published, as an explicit view (never ambient chrome, PRES-25): its status line,
 * activities with their metrics, the list or tree, the selected node's detail, and the actions.
 * With ACTION, that action runs through the host, pinned to the snapshot just shown (its fence,
 * generation and revision), so a person never runs an action of a snapshot they did not see.
 * Every extension string goes through terminalSafe; URLs are printed as text, never opened.
 */
import type { ExtensionHost, PresentationRecord } from "@octet/host";
import type { PresentationMetrics, PresentationNode, PresentationReference } from "@octet/protocol";
import { UsageError } from "./args.js";
import { paint, terminalSafe } from "./output.js";
import type { ProgressView } from "./progress-view.js";

const out = process.stdout;
const s = (text: string): string => terminalSafe(text);

export async function showCommand(
  host: ExtensionHost,
  words: string[],
  signal: AbortSignal,
  withProgress: <T>(label: string, run: (onProgress: ProgressView["handle"]) => Promise<T>) => Promise<T>,
): Promise<void> {
  const [name, actionId, ...extra] = words.filter((w) => w !== "");
  if (name === undefined || extra.length > 0) throw new UsageError("usage: /extensions show NAME [ACTION]");
  if (!host.status().some((x) => x.name === name))
    throw new UsageError(`no extension named ${JSON.stringify(name)}; see /extensions list`);
  const record = host.presentation(name);
  if (record === null) {
    out.write(
      `${name} has published no presentation (it needs API 0.2+ and presentation = true under [contributes]).\n`,
    );
    return;
  }
  if (actionId === undefined) {
    out.write(formatPresentation(record));
    return;
  }
  const at = { instance: record.instance, generation: record.generation, revision: record.revision };
  const result = await withProgress(`${name} ${actionId}`, (onProgress) =>
    host.runPresentationAction(name, actionId, { signal, onProgress, at }),
  );
  out.write(`${s(result.text)}${result.text.endsWith("\n") ? "" : "\n"}`);
  for (const n of result.notifications)
    out.write(`[${result.extension}] ${n.level}: ${s(n.title)}${n.message ? ` — ${s(n.message)}` : ""}\n`);
}

export function formatPresentation(r: PresentationRecord): string {
  const { snapshot } = r;
  const owner = r.owner === null ? "process-scoped" : `session ${s(r.owner.session_id)}`;
  const lines: string[] = [
    `${paint("bold", r.extension, out)} ` +
      `${paint("dim", `${r.version}, generation ${r.generation}, revision ${r.revision}, ${owner}`, out)}`,
  ];
  if (snapshot.status) {
    const label = snapshot.status.label !== undefined ? ` — ${s(snapshot.status.label)}` : "";
    lines.push(`status: ${snapshot.status.state}${label}`);
  }
  if (snapshot.activities.length > 0) {
    lines.push("activities:");
    for (const a of snapshot.activities) {
      const what = [a.summary, a.provenance]
        .filter((x): x is string => x !== undefined)
        .map(s)
        .join(" · ");
      lines.push(`  ${a.state.padEnd(11)} ${s(a.id)} [${s(a.kind)}]${what ? ` ${what}` : ""}`);
      if (a.metrics) lines.push(`              ${metricsText(a.metrics)}`);
      lines.push(...references(a.references, "              "));
    }
  }
  const c = snapshot.collection;
  if (c) {
    lines.push(`${c.title !== undefined ? s(c.title) : "items"} (${c.kind}):`);
    if (c.nodes.length === 0) lines.push("  (empty)");
    for (const { node, depth } of ordered(c.nodes)) {
      const mark = node.id === c.selected_node_id ? ">" : " ";
      const parts = [s(node.label), node.state ?? "", node.secondary !== undefined ? s(node.secondary) : ""].filter(
        (x) => x !== "",
      );
      const acts =
        node.action_ids.length > 0 ? paint("dim", ` actions: ${node.action_ids.map(s).join(", ")}`, out) : "";
      lines.push(`  ${mark} ${"  ".repeat(depth)}${parts.join("  ")}  ${paint("dim", `[${s(node.id)}]`, out)}${acts}`);
    }
    const d = c.detail;
    if (d) {
      lines.push(`detail${d.title !== undefined ? `: ${s(d.title)}` : ""} [${s(d.node_id)}]`);
      if (d.body !== undefined) for (const line of s(d.body).split("\n")) lines.push(`  ${line}`);
      lines.push(...references(d.references, "  "));
    }
  }
  if (snapshot.actions.length > 0) {
    lines.push("actions:");
    for (const a of snapshot.actions) {
      const destructive = a.destructive ? ` ${paint("red", "(destructive)", out)}` : "";
      lines.push(`  ${s(a.id)}  ${s(a.label)} -> /${s([a.command, ...a.arguments].join(" "))}${destructive}`);
    }
    lines.push(paint("dim", `run one with /extensions show ${r.extension} ACTION`, out));
  }
  return `${lines.join("\n")}\n`;
}

/** "tools 4 · in 12000 · cache read 800 · out 220 (reasoning 60) · $0.007200": only the counters sent. */
export function metricsText(m: PresentationMetrics): string {
  const parts: string[] = [];
  if (m.tool_calls !== undefined) parts.push(`tools ${m.tool_calls}`);
  if (m.input_tokens !== undefined) parts.push(`in ${m.input_tokens}`);
  if (m.cache_read_tokens !== undefined) parts.push(`cache read ${m.cache_read_tokens}`);
  if (m.cache_write_tokens !== undefined) parts.push(`cache write ${m.cache_write_tokens}`);
  if (m.output_tokens !== undefined)
    parts.push(`out ${m.output_tokens}${m.reasoning_tokens !== undefined ? ` (reasoning ${m.reasoning_tokens})` : ""}`);
  if (m.cost_microdollars !== undefined) parts.push(`$${(m.cost_microdollars / 1_000_000).toFixed(6)}`);
  return parts.join(" · ");
}

function references(refs: readonly PresentationReference[], indent: string): string[] {
  return refs.map(
    (ref) =>
      `${indent}${ref.kind}: ${ref.label !== undefined ? `${s(ref.label)} ` : ""}${paint("dim", s(ref.id), out)}`,
  );
}

/** Nodes in display order: each root followed by its subtree, depth-first, in snapshot order. */
function ordered(nodes: readonly PresentationNode[]): { node: PresentationNode; depth: number }[] {
  const children = new Map<string | undefined, PresentationNode[]>();
  for (const n of nodes) children.set(n.parent_id, [...(children.get(n.parent_id) ?? []), n]);
  const result: { node: PresentationNode; depth: number }[] = [];
  // Iterative: the validator already bounded the depth at 16 and refused cycles.
  const stack = [...(children.get(undefined) ?? [])].reverse().map((node) => ({ node, depth: 0 }));
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    result.push(next);
    for (const child of [...(children.get(next.node.id) ?? [])].reverse())
      stack.push({ node: child, depth: next.depth + 1 });
  }
  return result;
}
