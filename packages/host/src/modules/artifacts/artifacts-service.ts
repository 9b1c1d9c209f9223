/**
 * The artifacts host service (W 2.8): when the embedder binds it (services.artifacts), each API
 * 0.2+ generation offers the `artifacts` feature, answers artifact/publish into its own
 * ArtifactStore, and resolves the media parts of its results through that store. Unbound, the
 * feature is not offered (INIT-29) and media parts are refused.
 *
 * Wire rules owned here: the feature must have been negotiated (ART-01); the request is
 * operation-scoped, so a missing or inactive parent answers -32002 (ART-05, REV-08); a malformed
 * or rejected publication answers -32602 naming the value and the limit (ART-05..13). The owner
 * is the host's (the generation's triple), never a member of the params.
 */
import {
  ErrorCode,
  WireError,
  isPlainObject,
  validateArtifactPublishParams,
  type ContentPart,
  type ResourceOwner,
} from "@octet/protocol";
import type { GenerationService, ServiceGeneration } from "../module.js";
import {
  ArtifactRefusal,
  ArtifactStore,
  type Artifact,
  type ArtifactLimits,
  type MediaResolution,
} from "./artifact-store.js";

/** services.artifacts: `true` for the spec's defaults, or limits lowered for a constrained host. */
export type ArtifactServiceOption = boolean | { limits?: Partial<ArtifactLimits> };

/** What the host asks of the bound artifacts service when a result or the embedder names media. */
export interface MediaResolver {
  resolve(parts: readonly ContentPart[], owner: ResourceOwner): MediaResolution;
  get(id: string, owner: ResourceOwner): Artifact | undefined;
}

/** A generation's artifacts instance: its handlers and the resolver of its media parts. */
export interface ArtifactsInstance extends GenerationService {
  readonly media: MediaResolver;
}

export function artifactsService(
  option: Exclude<ArtifactServiceOption, false>,
): (g: ServiceGeneration) => ArtifactsInstance {
  const limits = option === true ? {} : (option.limits ?? {});
  return (g) => {
    const store = new ArtifactStore(() => g.scratchDir(), limits);
    let negotiated = false;
    return {
      features: ["artifacts"],
      negotiated: (features) => {
        negotiated = features.includes("artifacts");
      },
      dispose: () => store.clear(),
      media: {
        // Without the feature no artifact exists, so a media part is always refused (CALL-18).
        resolve: (parts, owner) =>
          negotiated
            ? store.resolve(parts, owner)
            : { ok: false, problem: "media parts need the artifacts feature, which was not negotiated" },
        get: (id, owner) => store.get(id, owner),
      },
      requests: {
        "artifact/publish": async (scope) => {
          if (!negotiated)
            throw new WireError(
              ErrorCode.MethodNotFound,
              "unsupported_feature artifact/publish needs the artifacts feature, which was not negotiated",
            );
          const raw = scope.params;
          if (!isPlainObject(raw))
            throw new WireError(ErrorCode.InvalidParams, "invalid artifact/publish: params must be an object");
          // The parent first: without an active host-owned context nothing else matters (-32002).
          const { signal } = scope.parent(raw["parent_request_id"]);
          const checked = validateArtifactPublishParams(raw);
          if (!checked.ok)
            throw new WireError(ErrorCode.InvalidParams, `invalid artifact/publish: ${checked.problems.join("; ")}`);
          try {
            return { artifact_id: await store.publish(checked.value, g.owner(), signal) };
          } catch (err) {
            if (err instanceof ArtifactRefusal)
              throw new WireError(ErrorCode.InvalidParams, `invalid artifact/publish: ${err.message}`);
            if (signal.aborted)
              throw new WireError(
                ErrorCode.RequestCancelled,
                "request_cancelled artifact/publish: its parent request settled or it was cancelled",
              );
            throw err;
          }
        },
      },
    };
  };
}
