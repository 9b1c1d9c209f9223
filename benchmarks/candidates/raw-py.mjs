// The raw Python floor: the raw parent (raw.mjs) over a minimal Python JSONL child
// (raw-py-child.py, standard library only). It is the baseline of the Python SDK candidate.
import { fileURLToPath } from "node:url";
import { connectChild } from "./raw.mjs";

const CHILD = fileURLToPath(new URL("./raw-py-child.py", import.meta.url));

export const name = "raw-py";
export const description = "minimal Python JSONL child behind the raw parent (the Python floor)";
/** Ratios of this candidate are shown against raw (the Node floor). */
export const baseline = "raw";
/** No cancellation protocol and no many-process start-up: the Python comparison is per call. */
export const unsupported = ["cancel-storm", "scale", "import-time", "peak-rss"];

export function connect({ childCpu }) {
  return connectChild(["python3", "-u", CHILD], childCpu);
}
