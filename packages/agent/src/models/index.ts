// Models through pi-ai: choosing (ref), configuring (models.json), resolving and explaining failures.
export { parseModelRef, formatModelRef, type ModelChoice } from "./ref.js";
export {
  loadModelsFile,
  parseModelsFile,
  supportedApis,
  type ModelsFile,
  type ProviderConfig,
  type ModelConfig,
} from "./models-file.js";
export {
  resolveModel,
  listModels,
  providerNames,
  requestOptions,
  type ResolvedModel,
  type ModelListing,
} from "./resolve.js";
export { describeProviderError, providerErrorKind, statusOf, type ProviderErrorKind } from "./errors.js";
export { keyVarsOf, type Env } from "./keys.js";
export { ExtensionProviders } from "./extension-providers.js";
export { modelCatalog, type ModelCatalog, type CatalogModel } from "./catalog.js";
