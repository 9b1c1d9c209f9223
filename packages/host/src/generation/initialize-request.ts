/**
 * The initialize request of one generation (INIT-02..05, INIT-12, INIT-13): the frozen API 0.1
 * shape, and for API 0.2/0.4 the protocol offer of the features this host binds, which the host
 * modules name (modules/registry.ts). Pure: builds data from the manifest, sends nothing.
 */
import {
  OCTET_VERSION,
  REQUIRED_FEATURES,
  bounds,
  isNegotiated,
  type HostState,
  type InitializeParams,
  type ManifestSource,
} from "@octet/protocol";
import type { ExtensionManifest } from "../manifest/manifest.js";
import { offeredFeatures } from "../modules/module-set.js";
import { BARE_HOST, bindModules } from "../modules/registry.js";

export { offeredOptionalFeatures } from "../modules/core/module.js";

export interface InitializeOffer {
  required: string[];
  optional: string[];
  maxConcurrentRequests: number;
}

export function buildInitializeRequest(
  manifest: ExtensionManifest,
  where: {
    manifestPath: string;
    source: ManifestSource;
    workspace: string;
    host: HostState;
    /** The optional features the generation's modules offer; default: those of a host with no embedder service. */
    optional?: readonly string[];
  },
): { params: InitializeParams; offered: InitializeOffer | undefined } {
  const params: InitializeParams = {
    api_version: manifest.api_version,
    octet_version: OCTET_VERSION,
    extension: {
      name: manifest.name,
      version: manifest.version,
      manifest_path: where.manifestPath,
      source: where.source,
    },
    workspace: where.workspace,
    capabilities: initializeCapabilities(manifest),
    contributes: initializeContributes(manifest),
    host: where.host,
  };
  if (!isNegotiated(manifest.api_version)) return { params, offered: undefined };
  const optional = [...(where.optional ?? offeredFeatures(bindModules({}, BARE_HOST), manifest, manifest.api_version))];
  const offered: InitializeOffer = {
    required: [...REQUIRED_FEATURES],
    optional,
    maxConcurrentRequests: bounds.MAX_CONCURRENT_REQUESTS,
  };
  params.protocol = {
    version: manifest.api_version,
    required_features: offered.required,
    optional_features: offered.optional,
    limits: { max_concurrent_requests: offered.maxConcurrentRequests },
  };
  return { params, offered };
}

function initializeCapabilities(m: ExtensionManifest): InitializeParams["capabilities"] {
  const caps: InitializeParams["capabilities"] = {
    filesystem: m.capabilities.filesystem,
    process: m.capabilities.process,
    network: m.capabilities.network,
  };
  // The frozen 0.1 shape has only these three members (INIT-12).
  if (isNegotiated(m.api_version) && m.capabilities.secrets.length > 0) caps.secrets = [...m.capabilities.secrets];
  if (isNegotiated(m.api_version) && m.capabilities.provider_credentials) caps.provider_credentials = true;
  return caps;
}

function initializeContributes(m: ExtensionManifest): InitializeParams["contributes"] {
  const c = m.contributes;
  const out: InitializeParams["contributes"] = {
    tools: [...c.tools],
    commands: [...c.commands],
    hooks: [...c.hooks],
    ui: [...c.ui],
    context: c.context,
    tool_renderers: [...c.tool_renderers],
    notifications: c.notifications,
    confirmations: c.confirmations,
  };
  if (isNegotiated(m.api_version)) {
    out.presentation = c.presentation;
    out.menu = c.menu;
  }
  return out;
}
