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

await Promise.all(
  packages.map((p) =>
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
);
