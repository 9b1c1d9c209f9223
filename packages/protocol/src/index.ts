export { OCTET_VERSION, API_VERSIONS, isApiVersion, isNegotiated } from "./version.js";
export type { ApiVersion } from "./version.js";
