/**
 * The pure syntax rules of the two manifest paths, `executable` and `entry` (RPI-13, RPI-14,
 * RPI-07). They run before any filesystem access, in the parser and again in the launcher (a
 * manifest value can be built without the parser). Containment against symlinks is the
 * launcher's job (resolve-launch.ts); this layer only refuses what is wrong as text.
 */

/** Script extensions the in-process QuickJS runtime runs (RPI-07). Case-sensitive, as written in the spec. */
export const RPI_SCRIPT_EXTENSIONS: readonly string[] = [".js", ".mjs"];

const TYPESCRIPT_EXTENSIONS = [".ts", ".mts", ".cts", ".tsx"];

/** Characters of a value quoted in a message: enough for a 64-char id one past its bound. */
const QUOTE_CHARS = 80;

/** A string as JSON, cut at QUOTE_CHARS so a message stays one readable line. */
export function quote(s: string): string {
  return JSON.stringify(s.length > QUOTE_CHARS ? `${s.slice(0, QUOTE_CHARS)}...` : s);
}

/** A JSON value as a message shows it: strings quoted, other kinds by type and value. */
export function showValue(v: unknown): string {
  if (typeof v === "string") return `string ${quote(v)}`;
  if (typeof v === "number" || typeof v === "boolean") return `${typeof v} ${String(v)}`;
  if (v === null) return "null";
  if (Array.isArray(v)) return `array of ${v.length}`;
  if (v === undefined) return "nothing";
  return "object";
}

/**
 * Why `p` is not an acceptable relative path inside the package directory, or null when it is.
 * Refused: empty, NUL, backslashes (a Windows separator that POSIX would read as a file-name
 * character, so the same manifest would name different files on different hosts), absolute paths
 * (a leading "/" or a drive letter such as "C:"), empty segments ("a//b", a trailing "/") and any
 * ".." segment, even one that would stay inside after normalization: the rule is simpler to state
 * and check than "does not leave", and no package needs to climb.
 */
export function relativePathProblem(p: string): string | null {
  if (p === "") return "must be a non-empty relative path";
  if (p.includes("\0")) return `${quote(p)} must not contain a NUL character`;
  if (p.includes("\\")) return `${quote(p)} must not contain a backslash ("\\"); use "/" as the separator`;
  if (p.startsWith("/")) return `${quote(p)} is an absolute path; it must be relative to the manifest directory`;
  if (/^[A-Za-z]:/.test(p))
    return (
      `${quote(p)} starts with a drive letter (an absolute Windows path); it must be relative to the manifest ` +
      `directory`
    );
  const segments = p.split("/");
  if (segments.includes(".."))
    return `${quote(p)} contains a ".." segment; parent traversal out of the manifest directory is not allowed`;
  if (segments.includes(""))
    return `${quote(p)} contains an empty segment ("//" or a trailing "/"); it must name a file`;
  return null;
}

/**
 * Why `p` is not a script the in-process runtime runs, or null when it ends in ".js" or ".mjs".
 * Every refusal says that TypeScript is not supported, since a .ts entry is the likely mistake.
 */
export function scriptExtensionProblem(p: string): string | null {
  if (RPI_SCRIPT_EXTENSIONS.some((ext) => p.endsWith(ext))) return null;
  const ts = TYPESCRIPT_EXTENSIONS.find((ext) => p.endsWith(ext));
  const what = ts === undefined ? "does not end in .js or .mjs" : `is a TypeScript file (${ts})`;
  return (
    `${quote(p)} ${what}: the QuickJS entry must be a .js or .mjs file; TypeScript is not supported by the ` +
    `in-process runtime (compile it to JavaScript first)`
  );
}
