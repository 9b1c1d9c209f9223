/**
 * The registry of implementations the conformance transcripts run against (hono's runTest
 * pattern): one entry per SDK or runtime, each starting its own conformance extension
 * (CONTRACT.md). A new implementation plugs in by adding one entry; a transcript it does not pass
 * yet is listed in `skip` with the reason, which the test run prints.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Implementation } from "./runner.js";

/** The repository root, from tests/dist/conformance/ (compiled) or tests/conformance/. */
export const ROOT = fileURLToPath(
  new URL(import.meta.url.includes("/tests/dist/") ? "../../../" : "../../", import.meta.url),
);

export const IMPLEMENTATIONS: readonly Implementation[] = [
  {
    name: "typescript",
    command: [process.execPath, fileURLToPath(new URL("./ts/conformance-extension.js", import.meta.url))],
  },
  {
    // The Python SDK (sdk/python, standard library only), from the checkout: PYTHONPATH is the
    // package's source root, as `pip install ./sdk/python` would make it importable.
    name: "python",
    // -S: no site-packages. The SDK is standard library only, and the child gets nothing of the
    // machine but PATH; a machine's .pth hooks (certifi, distutils) cost more than the SDK's import.
    command: ["python3", "-S", join(ROOT, "tests", "conformance", "python", "conformance_extension.py")],
    env: { PYTHONPATH: join(ROOT, "sdk", "python") },
    apis: ["0.1", "0.2", "0.4"],
  },
];
