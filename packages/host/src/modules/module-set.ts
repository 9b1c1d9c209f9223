/**
 * The bound modules as one generation sees them: the optional features offered to its manifest,
 * the instances opened for it, and the dispatch of child requests and notifications to them.
 * Built from the registry's bound modules, never from a hand-written list (issue 14.2).
 */
import type { ApiVersion, MethodKind, MethodSpec } from "@octet/protocol";
import type { ExtensionManifest } from "../manifest/manifest.js";
import type {
  BoundModule,
  ChildNotificationHandler,
  ChildRequestHandler,
  GenerationService,
  HostModule,
  ServiceGeneration,
} from "./module.js";

/** Which module answers each child method: the static table the inbox dispatches through. */
export interface DispatchTable {
  requests: ReadonlyMap<string, HostModule>;
  notifications: ReadonlyMap<string, HostModule>;
}

/**
 * The dispatch table of `modules`. A method claimed by two modules, or listed as a child request
 * or notification when the method table says otherwise, is a programming error.
 */
export function dispatchTable(modules: readonly HostModule[]): DispatchTable {
  const requests = new Map<string, HostModule>();
  const notifications = new Map<string, HostModule>();
  for (const m of modules) {
    for (const spec of m.childRequests) claim(requests, spec, "request", m);
    for (const spec of m.childNotifications) claim(notifications, spec, "notification", m);
  }
  return { requests, notifications };
}

function claim(table: Map<string, HostModule>, spec: MethodSpec, kind: MethodKind, m: HostModule): void {
  if (spec.direction === "host->child" || spec.kind !== kind) {
    const is = `${spec.direction} ${spec.kind}`;
    throw new Error(`host module "${m.feature}" lists ${spec.method} as a child ${kind}, but it is a ${is}`);
  }
  const other = table.get(spec.method);
  if (other && other !== m) {
    throw new Error(`host modules "${other.feature}" and "${m.feature}" both answer ${spec.method}`);
  }
  table.set(spec.method, m);
}

/** The optional features `bound` offer to a manifest, in registry order, each once. */
export function offeredFeatures(bound: readonly BoundModule[], manifest: ExtensionManifest, api: ApiVersion): string[] {
  const out: string[] = [];
  for (const { module, binding } of bound) {
    for (const f of module.offer(manifest, api, binding) ?? []) if (!out.includes(f)) out.push(f);
  }
  return out;
}

export class GenerationModules {
  /** The optional features offered in initialize. */
  readonly features: string[];
  readonly #table: DispatchTable;
  readonly #open = new Map<HostModule, GenerationService>();

  constructor(bound: readonly BoundModule[], g: ServiceGeneration) {
    this.features = offeredFeatures(bound, g.manifest, g.api);
    this.#table = dispatchTable(bound.map((b) => b.module));
    for (const { module, binding } of bound) {
      if (module.offer(g.manifest, g.api, binding) === null) continue;
      const instance = module.open(g, binding);
      if (!instance) continue;
      checkListed(module, instance);
      this.#open.set(module, instance);
    }
  }

  /** The handler of `method`, when the module that answers it is open for this generation. */
  request(method: string): ChildRequestHandler | undefined {
    const m = this.#table.requests.get(method);
    return m ? this.#open.get(m)?.requests?.[method] : undefined;
  }

  notification(method: string): ChildNotificationHandler | undefined {
    const m = this.#table.notifications.get(method);
    return m ? this.#open.get(m)?.notifications?.[method] : undefined;
  }

  /** The instance `module` opened for this generation, for the host's own use of it (media). */
  instance(module: HostModule): GenerationService | undefined {
    return this.#open.get(module);
  }

  negotiated(features: readonly string[]): void {
    for (const s of this.#open.values()) s.negotiated?.(features);
  }

  dispose(): void {
    for (const s of this.#open.values()) {
      try {
        s.dispose?.();
      } catch {
        // A module's cleanup failing must not stop the others'.
      }
    }
  }
}

/** An instance's handlers must be the module's declared methods: the table is built from those. */
function checkListed(m: HostModule, s: GenerationService): void {
  for (const method of Object.keys(s.requests ?? {})) {
    if (!m.childRequests.some((spec) => spec.method === method)) unlisted(m, method, "childRequests");
  }
  for (const method of Object.keys(s.notifications ?? {})) {
    if (!m.childNotifications.some((spec) => spec.method === method)) unlisted(m, method, "childNotifications");
  }
}

function unlisted(m: HostModule, method: string, list: string): never {
  throw new Error(`host module "${m.feature}" answers ${method} without listing it in ${list}`);
}
