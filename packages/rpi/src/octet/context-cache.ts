/**
 * The invocation context an rpi extension is given with each request (QJS-08, QJS-09), built
 * from what octet knows and cached per catalog epoch.
 */
import type { ForeignSessionState } from "@octet/protocol";
import { mirrorBounds, SessionMirror } from "./session-mirror.js";
import { DEFAULT_MAX_FRAME_BYTES, type InvocationContext, type SessionContext } from "../protocol/frames.js";

/** The host's catalog now: every ready extension's tools and commands. */
export interface HostCatalog {
  tools: readonly { name: string }[];
  commands: readonly { name: string; description?: string }[];
}

/**
 * The invocation context of the rpi protocol (QJS-08, QJS-09) from what octet knows: the
 * session name, model and reasoning of the host state (null until octet has a session), and
 * the catalog as every tool and command (octet has no per-session active tool set yet, so the
 * active tools are all of them). Built once per catalog epoch: the host does not signal a
 * change to a foreign runtime, so the catalog it returns is compared with the last one (names
 * and descriptions, no encoding), and the same object goes to the connection, which encodes it
 * once (RpiConnection: the context is cached by identity).
 */
export class ContextCache {
  /** The session as the host last described it (initialize, then each request's context). */
  private hostState: Record<string, unknown> = {};
  /** The last context and what it was built from: while neither changes, the same object is reused. */
  private built: { catalog: HostCatalog; session: Session; context: Partial<InvocationContext> } | null = null;

  /** The foreground session of the embedder's session layer, as deltas for this instance. */
  readonly #mirror: SessionMirror;
  #withSession: {
    base: Partial<InvocationContext>;
    session: SessionContext;
    tools: string;
    context: Partial<InvocationContext>;
  } | null = null;

  constructor(
    private readonly catalog: () => HostCatalog,
    private readonly sessionState?: () => ForeignSessionState | null,
    maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES,
  ) {
    this.#mirror = new SessionMirror(mirrorBounds(maxFrameBytes));
  }

  /**
   * The context for a request with these params (its `context.host`, when there is one, is the
   * new host state), with the session layer's session when there is one.
   */
  of(params: Record<string, unknown>): Partial<InvocationContext> {
    const base = this.#base(params);
    const state = this.sessionState?.() ?? null;
    const session = this.#mirror.next(state);
    if (!state || !session) return base;
    const last = this.#withSession;
    const tools = state.tools ? JSON.stringify(state.tools) : "";
    if (last && last.base === base && last.session === session && last.tools === tools) return last.context;
    const context: Partial<InvocationContext> = {
      ...base,
      ...(state.tools ? withLayerTools(base, state.tools) : {}),
      sessionName: state.name,
      ...(state.model ? { model: state.model } : {}),
      ...(state.thinkingLevel !== undefined ? { thinkingLevel: state.thinkingLevel } : {}),
      session,
    };
    this.#withSession = { base, session, tools, context };
    return context;
  }

  #base(params: Record<string, unknown>): Partial<InvocationContext> {
    const host = (params["context"] as { host?: unknown } | undefined)?.host;
    if (host !== null && typeof host === "object") this.hostState = host as Record<string, unknown>;
    const catalog = this.catalog();
    const hostState = this.hostState;
    const built = this.built;
    const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
    const session: Session = [str(hostState["session_name"]), str(hostState["reasoning"]), str(hostState["model"])];
    const same = built !== null && sameSession(built.session, session) && sameCatalog(built.catalog, catalog);
    if (same) return built!.context;
    const [sessionName, thinkingLevel, model] = session;
    const tools = catalog.tools.map((t) => t.name);
    const context: Partial<InvocationContext> = {
      sessionName,
      thinkingLevel,
      // octet names a model by one string; pi's Model is an object, whose id it is.
      model: model === null ? null : { id: model },
      activeTools: tools,
      allTools: [...tools],
      commands: catalog.commands.map((x) =>
        x.description ? { name: x.name, description: x.description } : { name: x.name },
      ),
    };
    this.built = { catalog, session, context };
    return context;
  }
}

/**
 * pi's allTools and activeTools with the session layer's own tools (the agent's built-ins, which
 * the host's catalog does not list) first, and its active set when it has one.
 */
function withLayerTools(
  base: Partial<InvocationContext>,
  tools: NonNullable<ForeignSessionState["tools"]>,
): Partial<InvocationContext> {
  const all = [...tools.builtin, ...(base.allTools ?? []).filter((t) => !tools.builtin.includes(t))];
  return { allTools: all, activeTools: tools.active ? [...tools.active] : [...all] };
}

/** Session name, thinking level and model id of the host state. */
type Session = readonly [string | null, string | null, string | null];

function sameSession(a: Session, b: Session): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}

/** The same tools and commands in the same order: the context built from `a` holds for `b`. */
function sameCatalog(a: HostCatalog, b: HostCatalog): boolean {
  if (a === b) return true;
  if (a.tools.length !== b.tools.length || a.commands.length !== b.commands.length) return false;
  for (let i = 0; i < a.tools.length; i++) if (a.tools[i]!.name !== b.tools[i]!.name) return false;
  for (let i = 0; i < a.commands.length; i++) {
    const x = a.commands[i]!;
    const y = b.commands[i]!;
    if (x.name !== y.name || x.description !== y.description) return false;
  }
  return true;
}
