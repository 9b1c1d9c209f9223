/**
 * pi's shortcuts on octet's (feature `shortcuts`, WAVE1-21..26): pi's key syntax ("ctrl+shift+p",
 * what pi-tui's Key.ctrl("x") builds) mapped to octet's, registered inside the initialize request
 * (the host admits shortcut/register only there), triggered by shortcut/trigger.
 *
 * Contract: the octet shortcut id is the pi key as the extension wrote it, so a trigger names the
 * handler to run. A key octet cannot bind (a special key such as escape or pageUp, `super`, a
 * bare letter, a key the line editor binds) and one the host refuses (another extension holds it)
 * is a warning naming the pi key and why; the extension's other shortcuts still register.
 */
import { parseShortcutKey } from "@octet/protocol";
import type { RpiConnection } from "../host/rpi-connection.js";
import type { InvocationContext } from "../protocol/frames.js";

/** octet's canonical key for a pi key, or why it cannot be bound. */
export function octetShortcutKey(piKey: string): { key: string } | { refused: string } {
  const parts = piKey.toLowerCase().split("+");
  if (parts.slice(0, -1).includes("super"))
    return { refused: `the pi shortcut "${piKey}" cannot be bound: octet's terminal keys have no super modifier` };
  const parsed = parseShortcutKey(parts.join("+"));
  if (!parsed.ok) return { refused: `the pi shortcut "${piKey}" cannot be bound: ${parsed.problem}` };
  return { key: parsed.key.canonical };
}

/**
 * Registers each shortcut inside the in-flight initialize (`parent`); resolves with how many the
 * host accepted (then initialize selects `shortcuts`).
 */
export async function registerPiShortcuts(
  shortcuts: readonly { key: string; description?: string }[],
  o: {
    parent: number;
    request(method: string, params: Record<string, unknown>): Promise<unknown>;
    warn(m: string): void;
  },
): Promise<number> {
  let accepted = 0;
  for (const s of shortcuts) {
    const mapped = octetShortcutKey(s.key);
    if ("refused" in mapped) {
      o.warn(mapped.refused);
      continue;
    }
    try {
      const params = { parent_request_id: o.parent, id: s.key, key: mapped.key, description: s.description ?? "" };
      await withRetry(() => o.request("shortcut/register", params));
      accepted++;
    } catch (err) {
      o.warn(
        `the pi shortcut "${s.key}" (${mapped.key}) was refused: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  return accepted;
}

/**
 * Inside the octet initialize: registers the extension's shortcuts when the host offers the
 * feature and answers the features to select (["shortcuts"] when one was accepted).
 */
export async function initializeShortcuts(
  shortcuts: readonly { key: string; description?: string }[],
  params: Record<string, unknown>,
  o: {
    parent: number;
    request(method: string, params: Record<string, unknown>): Promise<unknown>;
    warn(m: string): void;
    info(m: string): void;
  },
): Promise<string[]> {
  if (shortcuts.length === 0) return [];
  const offered = (params["protocol"] as { optional_features?: unknown } | undefined)?.optional_features;
  if (!Array.isArray(offered) || !offered.includes("shortcuts")) {
    // A host without a terminal (octet run, call): pi's print mode ignores shortcuts too.
    o.info(`the host did not offer shortcuts: ${shortcuts.map((s) => `"${s.key}"`).join(", ")} not bound`);
    return [];
  }
  return (await registerPiShortcuts(shortcuts, o)) > 0 ? ["shortcuts"] : [];
}

/**
 * The tag of a shortcut handler's invocation: the requests its ctx makes name it as their parent,
 * so a dialog is refused as the shortcut's (bridge-services.ts) rather than asked on behalf of
 * whatever call happens to be running.
 */
export const SHORTCUT_INVOCATION = "pi-shortcut";

/**
 * Why a shortcut handler cannot ask (ctx.ui.confirm/select/input/editor): WAVE1-21's
 * shortcut/trigger is a notification with no parent request, and confirmation/request and
 * input/request are asked only inside a running tool/call or command/execute (CONF-01).
 */
export const SHORTCUT_DIALOG_REFUSAL =
  "a shortcut handler has no call to ask on behalf of: octet's shortcut/trigger is a notification without a " +
  "parent request, and dialogs are asked only inside a running tool call or command (register a command that " +
  "asks, and run it)";

/** shortcut/trigger {id}: the pi handler runs with a ctx; nobody waits for it (a notification). */
export function triggerPiShortcut(
  c: RpiConnection,
  params: unknown,
  context: Partial<InvocationContext>,
  warn: (message: string) => void,
): void {
  const id = (params as { id?: unknown } | undefined)?.id;
  if (typeof id !== "string") return;
  void c.invoke({ kind: "shortcut", key: id }, { context, tag: SHORTCUT_INVOCATION }).then((r) => {
    if (r.status === "error") warn(`the shortcut "${id}" failed: ${r.error.message}`);
  });
}

/**
 * The in-process bridge answers initialize within the turn the host sends it, which can be before
 * the host notes the request as in flight: "not ready" is tried again (as the SDKs do, 20 x 25 ms).
 */
async function withRetry(send: () => Promise<unknown>): Promise<void> {
  for (let left = 20; ; left--) {
    try {
      await send();
      return;
    } catch (err) {
      if (left === 0 || !/not ready/.test(err instanceof Error ? err.message : String(err))) throw err;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
