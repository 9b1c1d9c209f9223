/**
 * Dynamic tools (CAT-01..18): tools/register and tools/unregister, offered as the dynamic_tools
 * feature when the embedder binds it (`services: { dynamicTools: true }` or with a policy).
 *
 * Every mutation is checked whole before anything changes (CAT-07): the request's shape and
 * definitions (the initialize rules, CAT-18), the 256 bound of the prospective catalog (CAT-05),
 * names the host or another extension holds (CAT-06), then the host tool policy, which may omit
 * tools (CAT-08). Only then is the complete next list published, as one new epoch (CAT-09); the
 * answer lists exactly what was accepted. The mutations are process-scoped (CAT-03).
 *
 * If the answer cannot be delivered, the writer fails, which terminates the generation, and its
 * tools go with it (CAT-10): host and extension never go on with different catalogs.
 */
import {
  ErrorCode,
  WireError,
  bounds,
  validateToolsRegisterParams,
  validateToolsUnregisterParams,
  type CatalogMutationResult,
  type ToolDefinition,
} from "@octet/protocol";
import type { ChildRequestScope, ServiceFactory, ServiceGeneration } from "../module.js";
import type { NameOwners } from "../options.js";

export interface DynamicToolsOptions {
  /**
   * The host tool policy: false omits a requested tool from the accepted set (it is not
   * published, and a name it would have replaced is withdrawn). Default: accept every tool.
   */
  policy?: (extension: string, tool: ToolDefinition) => boolean;
}

export function dynamicToolsService(options: DynamicToolsOptions, owners: NameOwners): ServiceFactory {
  return (g) => ({
    features: ["dynamic_tools"],
    requests: {
      "tools/register": async (scope) => register(g, scope, options, owners),
      "tools/unregister": async (scope) => unregister(g, scope),
    },
  });
}

function negotiatedOrRefuse(g: ServiceGeneration, method: string): void {
  // CAT-01: only with dynamic_tools negotiated; otherwise the method does not exist for it.
  // ERR-08: the message starts "unsupported_feature", as for every reverse method not negotiated.
  if (!g.catalog.features().includes("dynamic_tools"))
    throw new WireError(
      ErrorCode.MethodNotFound,
      `unsupported_feature: ${method} needs the dynamic_tools feature, which this generation did not negotiate`,
    );
}

function register(
  g: ServiceGeneration,
  scope: ChildRequestScope,
  options: DynamicToolsOptions,
  owners: NameOwners,
): CatalogMutationResult {
  negotiatedOrRefuse(g, "tools/register");
  const checked = validateToolsRegisterParams(scope.params, g.api, g.catalog.features());
  if (!checked.ok)
    throw new WireError(ErrorCode.InvalidParams, `invalid tools/register: ${checked.problems.join("; ")}`);
  const requested = checked.value.tools;
  const taken = owners(g.name);
  for (const t of requested) {
    const owner = taken.get(t.name);
    if (owner !== undefined)
      throw new WireError(
        ErrorCode.InvalidParams,
        `tools/register refused: tool "${t.name}" is already provided by ${owner}; the published catalog is unchanged`,
      );
  }
  const accepted = requested.filter((t) => options.policy?.(g.name, t) ?? true);
  const omitted = new Set(requested.filter((t) => !accepted.includes(t)).map((t) => t.name));
  // Complete definitions replace whole (CAT-02); new names are appended in request order.
  const byName = new Map(accepted.map((t) => [t.name, t] as const));
  const next: ToolDefinition[] = [];
  for (const t of g.catalog.tools()) {
    if (omitted.has(t.name)) continue;
    next.push(byName.get(t.name) ?? t);
    byName.delete(t.name);
  }
  next.push(...byName.values());
  if (next.length > bounds.MAX_TOOLS) {
    throw new WireError(
      ErrorCode.InvalidParams,
      `tools/register refused: the catalog would hold ${next.length} tools, over the ${bounds.MAX_TOOLS}-tool ` +
        `limit; the published catalog is unchanged`,
    );
  }
  if (omitted.size > 0)
    g.diagnose(
      "info",
      `host tool policy omitted ${[...omitted].map((n) => JSON.stringify(n)).join(", ")} from tools/register`,
    );
  return publish(g, next);
}

function unregister(g: ServiceGeneration, scope: ChildRequestScope): CatalogMutationResult {
  negotiatedOrRefuse(g, "tools/unregister");
  const checked = validateToolsUnregisterParams(scope.params);
  if (!checked.ok)
    throw new WireError(ErrorCode.InvalidParams, `invalid tools/unregister: ${checked.problems.join("; ")}`);
  // Names that do not exist are ignored (CAT-11); the request still counts as one mutation (CAT-13).
  const gone = new Set(checked.value.names);
  return publish(
    g,
    g.catalog.tools().filter((t) => !gone.has(t.name)),
  );
}

function publish(g: ServiceGeneration, next: ToolDefinition[]): CatalogMutationResult {
  let revision: number;
  try {
    revision = g.catalog.publish(next);
  } catch (err) {
    throw new WireError(
      ErrorCode.InvalidParams,
      `refused: ${err instanceof Error ? err.message : String(err)}; the published catalog is unchanged`,
    );
  }
  return { revision, tools: next.map((t) => t.name) };
}
