/**
 * The initialize handshake of one generation (INIT-01..13): the request built from the manifest
 * and the features the bound services offer, a bounded wait for the answer, and the answer
 * checked before anything is believed: its API version, the catalog the manifest (or a foreign
 * instance's registration) declares, the negotiated features against the offer, and tool schemas
 * that compile. Any refusal is an OctetError naming why; nothing is admitted before it passes.
 */
import {
  OctetError,
  WireError,
  bounds,
  isNegotiated,
  validateInitializeResult,
  type AcceptedInitialize,
  type ApiVersion,
  type ContentPart,
  type HostState,
  type ManifestSource,
  type RpcPeer,
} from "@octet/protocol";
import type { DiagnosticLevel } from "../events.js";
import type { HostRequestsOptions } from "./host-requests.js";
import { buildInitializeRequest } from "./initialize-request.js";
import type { ExtensionManifest } from "../manifest/manifest.js";
import type { GenerationCatalog } from "./catalog.js";

export interface HandshakeOptions {
  manifest: ExtensionManifest;
  manifestPath: string;
  source: ManifestSource;
  workspace: string;
  host: HostState;
  /** The optional features the generation's host modules offer. */
  optional: readonly string[];
  /** The catalog names initialize must answer when not the manifest's (a foreign instance's). */
  declared: { tools: readonly string[]; commands: readonly string[] } | null;
  timeoutMs?: number | undefined;
  /** Receives the initialize catalog; its schemas must compile. */
  catalog: GenerationCatalog;
  /** Told the initialize request's id once it is sent: the parent of shortcut/register (WAVE1-24). */
  onSent?: (id: number) => void;
}

/** Sends initialize and returns the accepted answer, or throws initialize_failed / initialize_timeout. */
export async function handshake(peer: RpcPeer, o: HandshakeOptions): Promise<AcceptedInitialize> {
  const { manifest } = o;
  const { params, offered } = buildInitializeRequest(manifest, {
    manifestPath: o.manifestPath,
    source: o.source,
    workspace: o.workspace,
    host: o.host,
    optional: o.optional,
  });
  const timeoutMs = o.timeoutMs ?? bounds.INITIALIZE_TIMEOUT_MS;
  let raw: unknown;
  try {
    const outgoing = peer.request("initialize", params, { timeoutMs });
    o.onSent?.(outgoing.id);
    raw = await outgoing.result;
  } catch (err) {
    if (err instanceof WireError) {
      const why = `${err.message} (code ${err.code})`;
      throw new OctetError("initialize_failed", `initialize was refused by the extension: ${why}`);
    }
    if (err instanceof OctetError && err.code === "request_timeout") {
      throw new OctetError("initialize_timeout", `no initialize response within ${timeoutMs} ms`);
    }
    throw err;
  }
  const declared = o.declared ?? manifest.contributes;
  const contributes = { tools: declared.tools, commands: declared.commands };
  const expect = { api: manifest.api_version, contributes, ...(offered ? { offered } : {}) };
  const checked = validateInitializeResult(raw, expect);
  if (!checked.ok) {
    throw new OctetError("initialize_failed", `initialize response rejected: ${checked.problems.join("; ")}`);
  }
  try {
    o.catalog.accept(checked.value.result.tools);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new OctetError("initialize_failed", `initialize response rejected: ${why}`);
  }
  return checked.value;
}

/** What the host's requests to a generation may do, from what initialize negotiated. */
export function negotiatedRequests(
  accepted: AcceptedInitialize,
  api: ApiVersion,
  hooks: {
    onGraceExpired: (id: number, method: string) => void;
    checkMedia: (parts: readonly ContentPart[]) => string | null;
    diagnose: (level: DiagnosticLevel, message: string) => void;
  },
): Omit<HostRequestsOptions, "peer"> {
  const features = new Set(accepted.features);
  return {
    cancellation: features.has("request_cancellation"),
    maxConcurrent: isNegotiated(api) ? accepted.maxConcurrentRequests : null,
    progress: {
      enabled: features.has("request_progress"),
      decoration: features.has("progress_decoration"),
      partialResult: api === "0.4" && features.has("request_progress") && features.has("content_parts"),
      api,
    },
    onGraceExpired: hooks.onGraceExpired,
    artifacts: features.has("artifacts"),
    checkMedia: hooks.checkMedia,
    diagnose: hooks.diagnose,
  };
}
