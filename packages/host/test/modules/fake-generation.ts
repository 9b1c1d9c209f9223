/**
 * A generation and reverse-request scopes for service unit tests: no process, no wire. Parents
 * are registered by id with their own AbortController (settle() = the parent settled), and every
 * diagnostic and event a service produces is kept for inspection.
 */
import { ErrorCode, WireError, type ResourceOwner } from "@octet/protocol";
import type { ChildRequestScope, GenerationService, ServiceGeneration } from "../../src/modules/module.js";
import type { ExtensionManifest } from "../../src/manifest/manifest.js";
import type { HostEvent } from "../../src/events.js";

export interface FakeGeneration extends ServiceGeneration {
  diagnostics: string[];
  events: HostEvent[];
  /** Registers an active parent request; returns its controller (abort = it settled). */
  addParent(id: number): AbortController;
  end(): void;
  setOwner(owner: Partial<ResourceOwner>): void;
}

export function fakeGeneration(
  o: { number?: number; secrets?: string[]; providerCredentials?: boolean } = {},
): FakeGeneration {
  const parents = new Map<number, AbortController>();
  const ended = new AbortController();
  let owner: ResourceOwner = { session_id: "s-1", extension_instance_id: "i-1", process_generation: o.number ?? 1 };
  const manifest = {
    name: "ext",
    api_version: "0.2",
    capabilities: {
      filesystem: "none",
      process: false,
      network: false,
      secrets: o.secrets ?? [],
      environment: [],
      provider_credentials: o.providerCredentials ?? false,
    },
  } as unknown as ExtensionManifest;
  const g: FakeGeneration = {
    name: "ext",
    api: "0.2",
    number: o.number ?? 1,
    manifest,
    scratchDir: () => null,
    // These services never touch the tool catalog.
    catalog: {
      tools: () => [],
      publish: () => {
        throw new Error("a policy or secrets service must not publish tools");
      },
      features: () => [],
    },
    activeRequest: (id) =>
      parents.has(id) ? { method: "tool/call", signal: parents.get(id)!.signal, takeApproval: () => false } : undefined,
    owner: () => ({ ...owner }),
    ended: ended.signal,
    diagnostics: [],
    events: [],
    diagnose(level, message) {
      g.diagnostics.push(`${level}: ${message}`);
    },
    emit(event) {
      g.events.push(event);
    },
    addParent(id) {
      const c = new AbortController();
      parents.set(id, c);
      c.signal.addEventListener("abort", () => parents.delete(id), { once: true });
      return c;
    },
    end() {
      ended.abort();
    },
    setOwner(next) {
      owner = { ...owner, ...next };
    },
  };
  (g as unknown as { parents: typeof parents }).parents = parents;
  return g;
}

let nextId = 1;

/** Calls `method` of `service` as the inbox would, with the inbox's parent rules (REV-08). */
export function call(
  g: FakeGeneration,
  service: GenerationService,
  method: string,
  params: unknown,
  own: AbortSignal = new AbortController().signal,
): Promise<unknown> {
  const handler = service.requests?.[method];
  if (!handler) throw new Error(`no handler for ${method}`);
  const parents = (g as unknown as { parents: Map<number, AbortController> }).parents;
  const scope: ChildRequestScope = {
    method,
    id: `c-${nextId++}`,
    params,
    signal: own,
    parent(parentId) {
      if (parentId === undefined || parentId === null)
        throw new WireError(ErrorCode.Unavailable, `${method} refused: parent_request_id is missing`);
      if (typeof parentId !== "number")
        throw new WireError(ErrorCode.InvalidParams, `${method}: parent_request_id must be an integer`);
      const p = parents.get(parentId);
      if (!p)
        throw new WireError(ErrorCode.Unavailable, `${method} refused: parent_request_id ${parentId} is not active`);
      return {
        signal: p.signal,
        parent: { method: "tool/call", signal: p.signal, takeApproval: () => false },
        parentId,
      };
    },
  };
  return handler(scope);
}

/** The wire error a call rejects with (fails if it resolves). */
export async function wireError(p: Promise<unknown>): Promise<WireError> {
  try {
    const v = await p;
    throw new Error(`expected a wire error, got ${JSON.stringify(v)}`);
  } catch (err) {
    if (err instanceof WireError) return err;
    throw err;
  }
}
