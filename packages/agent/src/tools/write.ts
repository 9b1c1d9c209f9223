/**
 * The write tool: a whole file's content, created with its folders or replaced atomically (a temp
 * file in the same folder, fsynced, renamed over the old one), so a reader or a crash never sees a
 * half-written file. An existing file keeps its permissions. Content is capped at 10 MiB.
 */
import { mkdir, stat } from "node:fs/promises";
import path from "node:path";
import { checkArgs } from "./args.js";
import { writeFileAtomic } from "./files.js";
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

export const WRITE_MAX_BYTES = 10 * 1024 * 1024;

const SPEC = {
  path: { type: "string", required: true, nonEmpty: true },
  content: { type: "string", required: true },
} as const;

export const writeTool: BuiltinTool = {
  name: "write",
  description:
    "Write a file of the workspace with the given content: creates it (and its folders) or replaces it whole. " +
    `The content is at most ${WRITE_MAX_BYTES / (1024 * 1024)} MiB of UTF-8 text. To change part of an existing ` +
    "file, use edit instead. Paths are relative to the workspace.",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "The file, relative to the workspace" },
      content: { type: "string", description: "The whole new content of the file" },
    },
    required: ["path", "content"],
  },
  mutates: true,
  summary(args) {
    const content = args?.["content"];
    const size = typeof content === "string" ? ` (${describeSize(content)})` : "";
    return `write ${displayLine(argText(args, "path"), 200)}${size}`;
  },
  execute: (args, ctx) => writeFile(args, ctx),
};

async function writeFile(args: Record<string, unknown>, ctx: BuiltinContext): Promise<BuiltinResult> {
  const checked = checkArgs("write", args, SPEC);
  if (!checked.ok) return errorResult(checked.error);
  const content = checked.values["content"] as string;
  const data = Buffer.from(content, "utf8");
  if (data.length > WRITE_MAX_BYTES) {
    return errorResult(
      `write: "content" is ${data.length} bytes, over the ${WRITE_MAX_BYTES}-byte limit; write a smaller file`,
    );
  }
  if (ctx.signal.aborted) return cancelledResult("write");
  const resolved = await resolveInWorkspace(ctx.workspace, checked.values["path"] as string);
  if (!resolved.ok) return errorResult(resolved.error);
  const { real, relative } = resolved.path;
  let mode: number | undefined;
  try {
    const info = await stat(real);
    if (info.isDirectory()) return errorResult(`${relative} is a directory; give the path of a file`);
    if (!info.isFile()) return errorResult(`${relative} is not a regular file; write replaces files only`);
    mode = info.mode;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code !== "ENOENT") return errorResult(`cannot write ${relative}: ${describeFsError(err)}`);
  }
  try {
    await mkdir(path.dirname(real), { recursive: true });
    await writeFileAtomic(real, data, mode);
  } catch (err) {
    return errorResult(`cannot write ${relative}: ${describeFsError(err)}`);
  }
  const verb = mode === undefined ? "created" : "replaced";
  return okResult(`${verb} ${relative} (${data.length} bytes)`, {
    path: relative,
    bytes: data.length,
    created: mode === undefined,
  });
}

function describeSize(content: string): string {
  const bytes = Buffer.byteLength(content, "utf8");
  const lines = content === "" ? 0 : content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
  return `${lines} line${lines === 1 ? "" : "s"}, ${bytes} bytes`;
}
