/**
 * Maps positions in a bundle back to the extension's source files, for the messages a QuickJS
 * extension's failures produce (its stack lines name the bundle by the entry's path, with the
 * bundle's line and column). Only what a stack needs: the "mappings" of a version 3 source map,
 * decoded once, looked up by generated line and column.
 */
import { isAbsolute, relative, sep } from "node:path";

interface Segment {
  column: number;
  source: number;
  line: number;
  sourceColumn: number;
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Decodes one segment's VLQ numbers. */
function vlq(text: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const ch of text) {
    const digit = BASE64.indexOf(ch);
    if (digit < 0) return out;
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    out.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return out;
}

export interface SourceMapper {
  /** The source position of a generated one (1-based line, 1-based column), or null when unmapped. */
  lookup(line: number, column: number): { source: string; line: number; column: number } | null;
  /** `text` with every "<bundleName>:line[:column]" replaced by the mapped source position. */
  mapText(text: string): string;
}

/**
 * A mapper for `mapJson` (sources absolute or relative to the package), showing sources relative
 * to `packageDir` ("./index.ts"); `bundleName` is the name the engine knows the bundle by.
 */
export function sourceMapper(mapJson: string, packageDir: string, bundleName: string): SourceMapper {
  const map = JSON.parse(mapJson) as { sources: string[]; mappings: string };
  const shown = map.sources.map((s) => {
    if (!isAbsolute(s)) return s.startsWith(".") ? s : `./${s}`;
    const rel = relative(packageDir, s);
    return rel.startsWith("..") ? `(octet) ${s.split(sep).slice(-2).join("/")}` : `./${rel.split(sep).join("/")}`;
  });
  const lines: Segment[][] = [];
  let source = 0;
  let line = 0;
  let sourceColumn = 0;
  for (const groups of map.mappings.split(";")) {
    const segments: Segment[] = [];
    let column = 0;
    for (const part of groups.split(",")) {
      if (part === "") continue;
      const v = vlq(part);
      column += v[0] ?? 0;
      if (v.length < 4) continue;
      source += v[1]!;
      line += v[2]!;
      sourceColumn += v[3]!;
      segments.push({ column, source, line, sourceColumn });
    }
    lines.push(segments);
  }
  const lookup: SourceMapper["lookup"] = (l, c) => {
    const segments = lines[l - 1];
    if (segments === undefined || segments.length === 0) return null;
    let best = segments[0]!;
    for (const s of segments) if (s.column <= c - 1) best = s;
    return { source: shown[best.source] ?? "?", line: best.line + 1, column: best.sourceColumn + 1 };
  };
  const escaped = bundleName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`${escaped}:(\\d+)(?::(\\d+))?`, "g");
  return {
    lookup,
    mapText: (text) =>
      text.replace(pattern, (whole, l: string, c: string | undefined) => {
        const hit = lookup(Number(l), c === undefined ? 1 : Number(c));
        return hit === null ? whole : `${hit.source}:${hit.line}:${hit.column}`;
      }),
  };
}
