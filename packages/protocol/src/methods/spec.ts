/**
 * The shape of one wire method's declaration (issue 14.1): who sends it, whether it is answered,
 * which negotiated feature must be on for it to be legal, which API versions carry it, and the
 * existing validators of its params and result. A declaration owns no behaviour: routing and
 * admission stay with the host and the SDKs, which look methods up here instead of comparing
 * strings in five places.
 */
import type { FeatureName } from "../features.js";
import type { Checked } from "../validate/kit.js";
import { API_VERSIONS, type ApiVersion } from "../version.js";

/**
 * Who sends the method. "both" is $/cancelRequest only: each side cancels its own outstanding
 * requests with the same notification (CANCEL-09), and a name is declared once.
 */
export type MethodDirection = "host->child" | "child->host" | "both";
export type MethodKind = "request" | "notification";

/**
 * An existing validator of the wire value. Several take context after the value (the API version,
 * the declared commands, the hook); the declaration says which in a comment, and the caller that
 * holds the context passes it (the `never[]` rest makes a call without it fail to type-check).
 */
export type MethodValidator = (value: unknown, ...context: never[]) => Checked<unknown>;

export interface MethodSpec {
  readonly method: string;
  readonly direction: MethodDirection;
  readonly kind: MethodKind;
  /** The negotiated feature that must be selected for the method to be legal; absent for core methods. */
  readonly feature?: FeatureName;
  /** The API versions that carry the method. */
  readonly apiVersions: readonly ApiVersion[];
  /** Absent where no validator exists today (said in a comment at the declaration). */
  readonly validateParams?: MethodValidator;
  readonly validateResult?: MethodValidator;
}

/** Every API version: the methods of the frozen 0.1 wire, kept by 0.2 and 0.4. */
export const ALL_VERSIONS: readonly ApiVersion[] = API_VERSIONS;
/** The feature-negotiated wire (API 0.2 and 0.4). */
export const NEGOTIATED_VERSIONS: readonly ApiVersion[] = API_VERSIONS.filter((v) => v !== "0.1");
