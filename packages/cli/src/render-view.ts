/**
 * A tool result as the extension's renderer shows it (REND-01..03): the segments joined, each
 * coloured by its style_role on a terminal only. Roles are matched by word ("extension.x.fail",
 * "test-error" are red; "ok", "success" green; "warn..." yellow; "detail", "dim" dim), other
 * roles stay plain. Without a renderer, or when it fails, the plain result text is shown.
 */
import type { ExtensionHost, ToolCallOutcome } from "@octet/host";
import type { RenderSegment } from "@octet/protocol";
import { colorsOn, paint, terminalSafe, type Color } from "./output.js";

export function roleColor(role: string | null): Color | null {
  if (role === null) return null;
  const words = role.toLowerCase().split(/[^a-z0-9]+/);
  const has = (test: (w: string) => boolean): boolean => words.some(test);
  if (has((w) => w.startsWith("error") || w.startsWith("fail"))) return "red";
  if (has((w) => w === "ok" || w.startsWith("success"))) return "green";
  if (has((w) => w.startsWith("warn"))) return "yellow";
  if (has((w) => w.startsWith("detail") || w === "dim")) return "dim";
  return null;
}

export function renderSegments(
  segments: readonly RenderSegment[],
  stream: NodeJS.WriteStream = process.stdout,
): string {
  const color = colorsOn(stream);
  return segments
    .map((s) => {
      const text = terminalSafe(s.text);
      const c = color ? roleColor(s.style_role) : null;
      return c === null || text === "" ? text : paint(c, text, stream);
    })
    .join("");
}

/** The text to print for a tool result: rendered when the extension renders this tool, else plain. */
export async function resultText(
  host: ExtensionHost,
  tool: string,
  args: Record<string, unknown>,
  result: ToolCallOutcome,
  signal: AbortSignal,
): Promise<string> {
  const segments = await host.renderTool(
    { name: tool, arguments: args, output: result.text, isError: result.is_error },
    { signal },
  );
  // Extension text never reaches the terminal raw: escape sequences could rewrite the screen.
  const text = segments === null ? terminalSafe(result.text) : renderSegments(segments);
  return `${result.is_error ? "[tool error] " : ""}${text}${text.endsWith("\n") ? "" : "\n"}`;
}
