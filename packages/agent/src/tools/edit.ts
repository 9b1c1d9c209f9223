/**
 * The edit tool: replaces one exact piece of a file. old_text must occur exactly once, so an edit
 * never lands somewhere the model did not look: none -> an error quoting its start and pointing to
 * read; several -> an error saying how many and asking for more surrounding lines. The file is
 * replaced atomically and the answer is a short diff of the change.
 */
import { checkArgs } from "./args.js";
import { editDiff } from "./edit-diff.js";
import { readTextFile, writeFileAtomic } from "./files.js";
import { resolveInWorkspace } from "./paths.js";
import {
  argText,
  type BuiltinContext,
  type BuiltinResult,
  type BuiltinTool,
  cancelledResult,
  describeFsError,
  displayLine,
  errorResult,
  okResult,
} from "./types.js";
import { WRITE_MAX_BYTES } from "./write.js";

const SPEC = {
  path: { type: "string", required: true, nonEmpty: true },
  old_text: { type: "string", required: true, nonEmpty: true },
  new_text: { type: "string", required: true },
} as const;

export const editTool: BuiltinTool = {
  name: "edit",
  description:
    "Edit a text file of the workspace by replacing old_text with new_text. old_text must match the file exactly " +
    "(whitespace and indentation included) and occur exactly once; include a few surrounding lines to make it " +
    `unique. Files up to ${WRITE_MAX_BYTES / (1024 * 1024)} MiB. The answer is a short diff of the change. ` +
    "Paths are relative to the workspace.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "The file, relative to the workspace" },
      old_text: { type: "string", description: "The exact text to replace; must occur exactly once" },
      new_text: { type: "string", description: "The text to put in its place" },
    },
    required: ["path", "old_text", "new_text"],
  },
  mutates: true,
  summary(args) {
    const oldText = args?.["old_text"];
    const newText = args?.["new_text"];
    const change =
      typeof oldText === "string" && typeof newText === "string"
        ? ` (${lineCount(oldText)} line${lineCount(oldText) === 1 ? "" : "s"} -> ${lineCount(newText)})`
        : "";
    return `edit ${displayLine(argText(args, "path"), 200)}${change}`;
  },
  execute: (args, ctx) => editFile(args, ctx),
};

async function editFile(args: Record<string, unknown>, ctx: BuiltinContext): Promise<BuiltinResult> {
  const checked = checkArgs("edit", args, SPEC);
  if (!checked.ok) return errorResult(checked.error);
  let oldText = checked.values["old_text"] as string;
  let newText = checked.values["new_text"] as string;
  if (oldText === newText) return errorResult("edit: old_text and new_text are the same; there is nothing to change");
  if (ctx.signal.aborted) return cancelledResult("edit");
  const resolved = await resolveInWorkspace(ctx.workspace, checked.values["path"] as string);
  if (!resolved.ok) return errorResult(resolved.error);
  const { real, relative } = resolved.path;
  const file = await readTextFile(real, relative, WRITE_MAX_BYTES);
  if (!file.ok) return errorResult(file.error);
  const text = file.text;
  let count = countOccurrences(text, oldText);
  let crlf = false;
  // read shows CRLF lines without their \r; a model copying from it sends \n. Match that as meant.
  if (count === 0 && text.includes("\r\n") && oldText.includes("\n") && !oldText.includes("\r")) {
    const oldCrlf = oldText.replace(/\n/g, "\r\n");
    const n = countOccurrences(text, oldCrlf);
    if (n > 0) {
      [oldText, newText, count, crlf] = [oldCrlf, newText.replace(/\r?\n/g, "\r\n"), n, true];
    }
  }
  if (count === 0) return errorResult(notFound(text, oldText, relative));
  if (count > 1) {
    return errorResult(
      `old_text occurs ${count} times in ${relative}; it must occur exactly once. Include more of the ` +
        "surrounding lines in old_text (and new_text) so that it matches only the place to change",
    );
  }
  const index = text.indexOf(oldText);
  const updated = text.slice(0, index) + newText + text.slice(index + oldText.length);
  const data = Buffer.from(updated, "utf8");
  if (data.length > WRITE_MAX_BYTES) {
    return errorResult(`the edited ${relative} would be ${data.length} bytes, over the ${WRITE_MAX_BYTES}-byte limit`);
  }
  if (ctx.signal.aborted) return cancelledResult("edit");
  try {
    await writeFileAtomic(real, data, file.mode);
  } catch (err) {
    return errorResult(`cannot write ${relative}: ${describeFsError(err)}`);
  }
  const diff = editDiff(text.replace(/\r\n/g, "\n"), lfIndex(text, index), lf(oldText).length, lf(newText));
  const note = crlf ? " (the file's CRLF line endings were kept)" : "";
  return okResult(`edited ${relative}${note}\n${diff.text}`, {
    path: relative,
    diff: diff.text,
    firstChangedLine: diff.firstChangedLine,
  });
}

/** Occurrences of `needle`, overlapping ones too: "aa" in "aaa" is ambiguous, so it counts twice. */
function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) n++;
  return n;
}

function notFound(text: string, oldText: string, relative: string): string {
  const prefix = displayLine(oldText.slice(0, 80), 120);
  let hint = "";
  const firstLine = oldText.split("\n").find((l) => l.trim() !== "");
  if (firstLine !== undefined && oldText.includes("\n")) {
    const at = text.indexOf(firstLine.trim());
    if (at !== -1) {
      const line = text.slice(0, at).split("\n").length;
      hint = ` Its first non-empty line (trimmed) does occur, at line ${line}: the difference is after that.`;
    }
  }
  return (
    `old_text was not found in ${relative} (it begins "${prefix}${oldText.length > 80 ? "..." : ""}").${hint} ` +
    `It must match exactly, whitespace and indentation included: read ${relative} and copy the text from it`
  );
}

/** The index in the \n-only form of `text` of `index` in `text`. */
function lfIndex(text: string, index: number): number {
  return index - (text.slice(0, index).match(/\r\n/g)?.length ?? 0);
}

function lf(s: string): string {
  return s.replace(/\r\n/g, "\n");
}

function lineCount(s: string): number {
  return s === "" ? 0 : s.split("\n").length;
}
