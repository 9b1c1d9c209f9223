/**
 * The shell's /reload (issue 13.8): the full host rebuild the wire reference names as the way out
 * of "re-registration required". A live reload (/extensions reload) must keep an extension's
 * catalog; an author who edited a description or a schema needs the host rebuilt from the
 * manifests on disk: every extension stopped, everything rediscovered and started again. This
 * says what changed, so the author sees the edit was taken.
 */
import { notReadyReasons, type ExtensionHost, type HostCommand, type HostTool } from "@octet/host";

/** What the new host offers that the old one did not, or offers differently. */
export function catalogChanges(
  before: { tools: HostTool[]; commands: HostCommand[] },
  after: { tools: HostTool[]; commands: HostCommand[] },
): string[] {
  const changes: string[] = [];
  const diff = <T extends { name: string; extension: string }>(kind: string, a: T[], b: T[]): void => {
    const key = (x: T): string => `${x.extension}/${x.name}`;
    const old = new Map(a.map((x) => [key(x), JSON.stringify(x)]));
    const now = new Map(b.map((x) => [key(x), JSON.stringify(x)]));
    for (const [k, v] of now) {
      if (!old.has(k)) changes.push(`new ${kind} ${k}`);
      else if (old.get(k) !== v) changes.push(`changed ${kind} ${k}`);
    }
    for (const k of old.keys()) if (!now.has(k)) changes.push(`removed ${kind} ${k}`);
  };
  diff("tool", before.tools, after.tools);
  diff("command", before.commands, after.commands);
  return changes;
}

/**
 * Stops `old` and starts a new host with `start`; returns it with the message to show: what runs
 * now, what changed in the catalogs, and every enabled extension that is not ready, with why.
 */
export async function rebuildHost(
  old: ExtensionHost,
  start: () => Promise<ExtensionHost>,
  enabled: readonly string[],
  signal?: AbortSignal,
): Promise<{ host: ExtensionHost; message: string }> {
  const before = { tools: old.tools(), commands: old.commands() };
  await old.shutdown();
  let host: ExtensionHost;
  try {
    host = await start();
  } catch (err) {
    // The old host is gone already: say so, rather than leave the shell on it as if it ran.
    throw new Error(
      `/reload: the host was stopped and the new one did not start ` +
        `(${err instanceof Error ? err.message : String(err)}); no extension is running; type /reload to try again`,
    );
  }
  // Ctrl-C during the start: the host comes back shut down. Never report that as a rebuild.
  if (signal?.aborted)
    return { host, message: "/reload interrupted: no extension is running; type /reload to start them again\n" };
  const after = { tools: host.tools(), commands: host.commands() };
  const running = host
    .status()
    .filter((s) => s.state === "ready")
    .map((s) => `${s.name} ${s.version ?? ""}`.trim());
  const changes = catalogChanges(before, after);
  const notReady = notReadyReasons(host.status(), enabled);
  const lines = [
    `rebuilt the host from the manifests on disk: ` +
      `${running.length > 0 ? `running ${running.join(", ")}` : "no extension running"}`,
    changes.length > 0 ? `catalog: ${changes.join(", ")}` : "catalog: unchanged",
    ...notReady.map((r) => `not ready: ${r}`),
  ];
  return { host, message: lines.join("\n") + "\n" };
}
