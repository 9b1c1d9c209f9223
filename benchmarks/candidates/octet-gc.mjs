// Candidate: octet exactly as `octet`, in a host process that keeps V8's young generation at its
// initial size (v8.setFlagsFromString("--semi-space-growth-factor=1"), set before the host starts,
// as an embedder may do: see the README's "Tuning the host process"). It shows what that one process
// setting changes; the targets are judged on `octet`, in a process left as Node starts it.
import v8 from "node:v8";

v8.setFlagsFromString("--semi-space-growth-factor=1");

export { importModules, connect } from "./octet.mjs";
export const name = "octet-gc";
export const description = "octet, host process with V8's young generation kept at its initial size";
/** The steady-state figures are the point; start-up and scale would repeat octet's. */
export const unsupported = ["import-time", "cold-start", "scale"];
