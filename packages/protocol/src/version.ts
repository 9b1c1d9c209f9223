/** The octet host version reported as initialize.params.octet_version and checked against requires_octet. */
export const OCTET_VERSION = "0.1.0";

/** API versions this host speaks. 0.3 is a distinct canonical wire that is not specified here (MAN-23). */
export const API_VERSIONS = ["0.1", "0.2", "0.4"] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

export function isApiVersion(value: unknown): value is ApiVersion {
  return typeof value === "string" && (API_VERSIONS as readonly string[]).includes(value);
}

/** True for the feature-negotiated wire (API 0.2 and 0.4). */
export function isNegotiated(api: ApiVersion): boolean {
  return api !== "0.1";
}
