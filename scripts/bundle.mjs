#!/usr/bin/env node
// Bundles each library package's compiled ESM (dist/src, from tsc -b) into one file,
// dist/bundle/index.js, which is what the package exports. Why: Node's ESM loader pays per module
// (resolve, open, read, compile), and the host's ~60 modules took about 50 ms to import; one file
// takes about 17 ms (benchmarks: import-time). Types still come from dist/src/*.d.ts.
// @octet/protocol stays one shared module (never copied into another bundle), so instanceof
// OctetError holds across packages.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const packages = [
  { dir: "packages/protocol", platform: "neutral", external: [] },
  { dir: "packages/host", platform: "node", external: ["@octet/protocol"] },
  { dir: "sdk/typescript", platform: "node", external: ["@octet/protocol"] },
];

// The QuickJS worker thread's entry with everything it imports (quickjs-emscripten, the sandbox):
// every QuickJS instance boots a fresh thread that loads this, so its module count is paid per
// cold start (about 10 ms of a ~210 ms single-core QuickJS cold start; benchmarks: cold-start).
// It lands beside the compiled worker.js, inside the package's published dist/src.
const workers = [
  { entry: "packages/rpi/dist/src/quickjs/worker.js", outfile: "packages/rpi/dist/src/quickjs/worker-bundle.js" },
];

await Promise.all([
  ...workers.map((w) =>
    build({
      absWorkingDir: root,
      entryPoints: [w.entry],
      outfile: w.outfile,
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      minify: false,
      logLevel: "warning",
    }),
  ),
  ...packages.map((p) =>
    build({
      absWorkingDir: root,
      entryPoints: [`${p.dir}/dist/src/index.js`],
      outfile: `${p.dir}/dist/bundle/index.js`,
      bundle: true,
      format: "esm",
      platform: p.platform,
      target: p.platform === "node" ? "node20" : "es2022",
      external: p.external,
      // Stack traces keep readable names; the files are not minified.
      minify: false,
      logLevel: "warning",
    }),
  ),
]);
