/**
 * pi's session_start and the resources_discover that follows it (pi's "Lifecycle Overview").
 * octet has no skills, prompt templates or themes to load, so the paths extensions return are
 * said in one notice per extension and ignored: an author sees at once why a skill is missing.
 */
import type { AgentEvent } from "./events.js";
import type { PiEvents } from "./pi-events.js";

const KINDS = ["skillPaths", "promptPaths", "themePaths"] as const;

/** session_start with `start`, then resources_discover (reason "reload" after a reload, else "startup"). */
export async function piSessionStart(
  pi: PiEvents,
  start: { reason: string } & Record<string, unknown>,
  cwd: string,
  emit: (e: AgentEvent) => void,
): Promise<void> {
  if (pi.takes("session_start")) await pi.observe("session_start", start);
  if (!pi.takes("resources_discover")) return;
  const reason = start.reason === "reload" ? "reload" : "startup";
  await pi.reduce(
    "resources_discover",
    () => ({ cwd, reason }),
    undefined,
    (answer, extension) => {
      const said = ignoredPaths(answer);
      if (said !== null)
        emit({
          type: "notice",
          level: "warning",
          source: extension,
          text: `octet does not load pi skills/prompts/themes: ignored ${said}`,
        });
      return false;
    },
  );
}

/** "skillPaths [a, b], promptPaths [c]" for the non-empty lists of an answer, or null. */
export function ignoredPaths(answer: unknown): string | null {
  if (typeof answer !== "object" || answer === null) return null;
  const parts: string[] = [];
  for (const kind of KINDS) {
    const list = (answer as Record<string, unknown>)[kind];
    if (Array.isArray(list) && list.length > 0) parts.push(`${kind} [${list.map(String).join(", ")}]`);
  }
  return parts.length > 0 ? parts.join(", ") : null;
}
