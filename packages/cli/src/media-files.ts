/**
 * `octet call` saves the verified media of a result (ToolCallOutcome.media) to files, so a person
 * can open what a tool produced: DIR/TOOL-N.EXT, N counting up past existing files, since a
 * second call must never overwrite the first one's output. The bytes are the host's verified
 * snapshot; the extension chooses neither the name nor the extension of the file.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ResolvedMedia } from "@octet/host";

const EXTENSIONS: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "audio/wav": "wav",
  "audio/mpeg": "mp3",
  "audio/flac": "flac",
  "audio/opus": "opus",
  "audio/aac": "aac",
  "audio/mp4": "m4a",
};

/** At most this many numbered names are tried per file before giving up. */
const MAX_NAME_ATTEMPTS = 10_000;

export interface SavedMedia {
  part: number;
  artifact_id: string;
  mime_type: string;
  size: number;
  sha256: string;
  path: string;
}

/** Writes each media item to `dir` (created if missing) and returns where each went. */
export async function saveMedia(dir: string, tool: string, media: readonly ResolvedMedia[]): Promise<SavedMedia[]> {
  if (media.length === 0) return [];
  await mkdir(dir, { recursive: true });
  // The tool name is a validated identifier, but a file name must not depend on that.
  const base = tool.replace(/[^A-Za-z0-9_.-]/g, "_");
  const saved: SavedMedia[] = [];
  let n = 1;
  for (const m of media) {
    const ext = EXTENSIONS[m.mime_type] ?? "bin";
    for (let attempt = 0; ; attempt++, n++) {
      const path = join(dir, `${base}-${n}.${ext}`);
      try {
        await writeFile(path, m.bytes, { flag: "wx" });
        saved.push({
          part: m.part,
          artifact_id: m.artifact_id,
          mime_type: m.mime_type,
          size: m.size,
          sha256: m.sha256,
          path,
        });
        n++;
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= MAX_NAME_ATTEMPTS) throw err;
      }
    }
  }
  return saved;
}
