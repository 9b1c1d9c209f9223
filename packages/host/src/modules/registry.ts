/**
 * The host modules, in one list: the initialize offer (in this order), the child-inbox dispatch
 * and the services an embedder can bind are all built from it. A new host feature is one folder
 * under modules/ with a module.ts, and one line here.
 */
import type { BoundModule, EmbedderView, HostModule, ModuleHost } from "./module.js";
import type { HostServiceOptions } from "./options.js";
import { coreModule } from "./core/module.js";
import { advisoryHooksModule } from "./advisory-hooks/module.js";
import { confirmationModule } from "./confirmation/module.js";
import { inputModule } from "./input/module.js";
import { notificationsModule } from "./notifications/module.js";
import { collectionModule } from "./collection/module.js";
import { menusModule } from "./menus/module.js";
import { dynamicToolsModule } from "./dynamic-tools/module.js";
import { presentationModule } from "./presentation/module.js";
import { artifactsModule } from "./artifacts/module.js";
import { policyModule } from "./policy/module.js";
import { providerCredentialsModule, secretsModule } from "./secrets/module.js";
import { sessionEntriesModule } from "./session-entries/module.js";
import { messageInjectionModule } from "./message-injection/module.js";
import { activeToolsModule } from "./active-tools/module.js";
import { sessionControlModule } from "./session-control/module.js";
import { terminalModule } from "./terminal/module.js";
import { frontendModule } from "./frontend/module.js";
import { foreignEventsModule } from "./foreign-events/module.js";

export type { HostServiceOptions } from "./options.js";
// Re-exported so that a declaration file of the registry loads each module's HostServiceOptions member.
export {
  coreModule,
  advisoryHooksModule,
  confirmationModule,
  inputModule,
  notificationsModule,
  collectionModule,
  menusModule,
  dynamicToolsModule,
  presentationModule,
  artifactsModule,
  policyModule,
  secretsModule,
  providerCredentialsModule,
  sessionEntriesModule,
  messageInjectionModule,
  activeToolsModule,
  sessionControlModule,
  terminalModule,
  frontendModule,
  foreignEventsModule,
};

/** A host with no embedder service reserves no tool names (a bare offer, a standalone inbox). */
export const BARE_HOST: ModuleHost = { nameOwners: () => new Map<string, string>() };

export const HOST_MODULES = [
  coreModule,
  advisoryHooksModule,
  confirmationModule,
  inputModule,
  notificationsModule,
  collectionModule,
  menusModule,
  dynamicToolsModule,
  presentationModule,
  artifactsModule,
  policyModule,
  secretsModule,
  providerCredentialsModule,
  sessionEntriesModule,
  messageInjectionModule,
  activeToolsModule,
  sessionControlModule,
  terminalModule,
  frontendModule,
  foreignEventsModule,
] as const satisfies readonly HostModule[];

type ApiOf<M> = M extends HostModule<unknown, infer E> ? E : never;
type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Every module's embedder API, merged: what the embedder reaches through the host. */
export type EmbedderSurface = Intersection<ApiOf<(typeof HOST_MODULES)[number]>>;

/** The embedder surface of `modules` over `view`; two modules exporting one name is a programming error. */
export function embedderSurface(view: EmbedderView, modules: readonly HostModule[] = HOST_MODULES): EmbedderSurface {
  const surface: Record<string, unknown> = {};
  const owner = new Map<string, string>();
  for (const m of modules) {
    for (const [name, fn] of Object.entries(m.embedderApi?.(view) ?? {})) {
      const other = owner.get(name);
      if (other !== undefined) {
        throw new Error(`host modules "${other}" and "${m.feature}" both export ${name} to the embedder`);
      }
      owner.set(name, m.feature);
      surface[name] = fn;
    }
  }
  return surface as EmbedderSurface;
}

/** Every module of `modules` the host runs with `options`: one without `bind` always is. */
export function bindModules(
  options: HostServiceOptions,
  host: ModuleHost,
  modules: readonly HostModule<unknown, object>[] = HOST_MODULES,
): BoundModule[] {
  const bound: BoundModule[] = [];
  for (const module of modules) {
    const binding = module.bind ? module.bind(options, host) : true;
    if (binding !== null && binding !== undefined) bound.push({ module, binding });
  }
  return bound;
}

/** The modules bound to an embedder service in `options` (the ones a bare host does not run). */
export function bindServices(options: HostServiceOptions, host: ModuleHost): BoundModule[] {
  const always = new Set(bindModules({}, host).map((b) => b.module));
  return bindModules(options, host).filter((b) => !always.has(b.module));
}
