/**
 * The short diff an edit answers with: the changed lines with a few lines of context around them,
 * in unified-diff style, so the model (and the person watching) can see what changed and where
 * without reading the file again. Long changes are elided in the middle.
 */

const CONTEXT_LINES = 3;
/** Removed or added lines shown at most per side; the rest is summarized. */
const MAX_SIDE_LINES = 40;

export interface EditDiff {
  text: string;
  /** 1-based line of the first changed line in the new file. */
  firstChangedLine: number;
}

/** The diff of replacing `before[index, index + oldLength)` by `replacement`. */
export function editDiff(before: string, index: number, oldLength: number, replacement: string): EditDiff {
  const lineStart = index === 0 ? 0 : before.lastIndexOf("\n", index - 1) + 1;
  const endNewline = before.indexOf("\n", index + oldLength);
  const lineEnd = endNewline === -1 ? before.length : endNewline;
  let oldLines = before.slice(lineStart, lineEnd).split("\n");
  const newRegion = before.slice(lineStart, index) + replacement + before.slice(index + oldLength, lineEnd);
  let newLines = newRegion.split("\n");
  let firstLine = countNewlines(before, lineStart) + 1;
  // The region is whole lines around the change; lines it shares at either end are context, not change.
  while (oldLines.length > 0 && newLines.length > 0 && oldLines[0] === newLines[0]) {
    oldLines = oldLines.slice(1);
    newLines = newLines.slice(1);
    firstLine++;
  }
  while (oldLines.length > 0 && newLines.length > 0 && oldLines.at(-1) === newLines.at(-1)) {
    oldLines = oldLines.slice(0, -1);
    newLines = newLines.slice(0, -1);
  }
  const all = before.split("\n");
  const ctxFrom = Math.max(1, firstLine - CONTEXT_LINES);
  const afterOld = firstLine + oldLines.length; // first unchanged line after the change (old numbering)
  const ctxTo = Math.min(all.length, afterOld + CONTEXT_LINES - 1);
  const lead = all.slice(ctxFrom - 1, firstLine - 1);
  const trail = all.slice(afterOld - 1, ctxTo);
  const oldCount = lead.length + oldLines.length + trail.length;
  const newCount = lead.length + newLines.length + trail.length;
  const out = [`@@ -${ctxFrom},${oldCount} +${ctxFrom},${newCount} @@`];
  for (const l of lead) out.push(` ${l}`);
  out.push(...side("-", oldLines), ...side("+", newLines));
  for (const l of trail) out.push(` ${l}`);
  return { text: out.join("\n"), firstChangedLine: firstLine };
}

function side(mark: string, lines: string[]): string[] {
  if (lines.length <= MAX_SIDE_LINES) return lines.map((l) => `${mark}${l}`);
  const head = lines.slice(0, MAX_SIDE_LINES / 2).map((l) => `${mark}${l}`);
  const tail = lines.slice(-MAX_SIDE_LINES / 2).map((l) => `${mark}${l}`);
  return [...head, `${mark}... (${lines.length - MAX_SIDE_LINES} more lines)`, ...tail];
}

function countNewlines(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) n++;
  return n;
}
