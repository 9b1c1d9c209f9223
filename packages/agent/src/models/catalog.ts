// Every model the agent knows, as pi's ModelRegistry lists them (pi extensions read it through
// ctx.modelRegistry): models.json providers first, then pi-ai's built-ins, each with whether its
// key is configured. No "!command" runs to tell: a configured apiKey counts as a key, as in
// `octet models`. Keys themselves stay here; resolve() is how the agent gets one.
import type { Api, Model } from "@mariozechner/pi-ai";
import { builtInKey, type Env } from "./keys.js";
import { isBuiltInProvider, type ModelsFile } from "./models-file.js";
import { providerModels, providerNames, resolveModel, type ResolvedModel } from "./resolve.js";

export interface CatalogModel {
  model: Model<Api>;
  /** Its key is configured (pi's hasConfiguredAuth). */
  available: boolean;
}

export interface ModelCatalog {
  /** Available models first; the same array on every call (the list is built once). */
  list(): readonly CatalogModel[];
  /** The model with its key and headers; throws saying what to set when it has none. */
  resolve(provider: string, id: string): Promise<ResolvedModel>;
}

export function modelCatalog(o: { modelsFile: ModelsFile | null; env: Env }): ModelCatalog {
  let built: CatalogModel[] | null = null;
  return {
    list() {
      built ??= build(o);
      return built;
    },
    resolve: (provider, id) => resolveModel({ provider, id }, o),
  };
}

function build(o: { modelsFile: ModelsFile | null; env: Env }): CatalogModel[] {
  const available: CatalogModel[] = [];
  const rest: CatalogModel[] = [];
  for (const provider of providerNames(o.modelsFile)) {
    const config = o.modelsFile?.providers.get(provider);
    const hasKey =
      config?.apiKey !== undefined || (isBuiltInProvider(provider) && builtInKey(provider, o.env) !== undefined);
    for (const { model } of providerModels(provider, o.modelsFile) ?? [])
      (hasKey ? available : rest).push({ model, available: hasKey });
  }
  return [...available, ...rest];
}
