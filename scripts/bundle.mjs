#!/usr/bin/env node
// Bundles each library package's compiled ESM (dist/src, from tsc -b) into one file,
// dist/bundle/index.js, which is what the package exports. Why: Node's ESM loader pays per module
// (resolve, open, read, compile), and the host's ~60 modules took about 50 ms to import; one file
// takes about 17 ms (benchmarks: import-time). Types still come from dist/src/*.d.ts.
// @octet/protocol stays one shared module (never copied into another bundle), so instanceof
// OctetError holds across packages.
//
// @octet/rpi is bundled the same way (its ~50 modules took about 40 ms of its import), with every
// package it imports left outside (esbuild, QuickJS's wasm, typebox are found where npm put them)
// and each file's own import.meta.url kept (ownImportMeta): it finds the files it ships beside its
// compiled modules (the QuickJS worker, the node runner, the pi shims) relative to them.
import { build } from "esbuild";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
// Every package a bundle imports stays outside it (found where npm put it, and @octet/protocol
// shared) but the ones it names in `inline` (with their subpaths) or `inlineExact` (that import
// alone); `ownImportMeta` keeps each compiled file's own import.meta.url.
const packages = [
  { dir: "packages/protocol", platform: "neutral" },
  { dir: "packages/host", platform: "node", inline: ["smol-toml"] },
  { dir: "sdk/typescript", platform: "node" },
  { dir: "packages/rpi", platform: "node", ownImportMeta: true },
  // @octet/agent with pi-ai's core inside: pi-ai's index and the ~680 modules of typebox it loads
  // took about 420 ms of every `octet run` and `octet shell` start, as ES modules one by one.
  // pi-ai's providers (and so their SDKs) stay in the installed pi-ai package (piAiProviders).
  {
    dir: "packages/agent",
    platform: "node",
    inline: ["typebox", "partial-json"],
    inlineExact: ["@mariozechner/pi-ai"],
    notices: true,
  },
];

/**
 * The licenses of the packages a bundle carries, beside it (THIRD-PARTY-NOTICES.md): MIT and its
 * kind ask that their notices travel with the copies. A package that ships no license file is
 * named with the license its package.json declares.
 */
async function writeNotices(p) {
  const sections = [];
  for (const name of [...(p.inlineExact ?? []), ...(p.inline ?? [])]) {
    const dir = `${root}node_modules/${name}`;
    const pkg = JSON.parse(await readFile(`${dir}/package.json`, "utf8"));
    const file = (await readdir(dir)).find((f) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(f));
    const text = file
      ? (await readFile(`${dir}/${file}`, "utf8")).trim()
      : `${pkg.license}, declared in its package.json, which ships no license file` +
        (pkg.author ? ` (author: ${typeof pkg.author === "string" ? pkg.author : pkg.author.name})` : "");
    sections.push(`## ${name} ${pkg.version}\n\nLicense: ${pkg.license}\n\n${text}\n`);
  }
  const head = "# Third-party code in this bundle\n\nindex.js carries these packages (scripts/bundle.mjs).\n\n";
  await writeFile(`${root}${p.dir}/dist/bundle/THIRD-PARTY-NOTICES.md`, head + sections.join("\n"));
}

/** Every package outside the bundle but those named (with their subpaths) or named exactly. */
function outsideBut(inline = [], exact = []) {
  return {
    name: "outside-but",
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith("node:")) return { external: true };
        if (exact.includes(args.path)) return undefined;
        if (inline.some((name) => args.path === name || args.path.startsWith(`${name}/`))) return undefined;
        return { external: true };
      });
    },
  };
}

/**
 * pi-ai loads each provider on its first request, by a relative import() from its
 * providers/register-builtins.js. Inside a bundle those would name files beside the bundle, so they
 * become the package's own exported subpaths: a provider, its SDK and what it shares with pi-ai's
 * core come from the installed pi-ai, which can resolve them (the core's stream wrapper reads the
 * provider's events by iteration, so the two copies need share no class). Fails the build when
 * pi-ai no longer has the shape this expects.
 */
function piAiProviders() {
  return {
    name: "pi-ai-providers",
    setup(b) {
      const file = /@mariozechner[\\/]pi-ai[\\/]dist[\\/]providers[\\/]register-builtins\.js$/;
      b.onLoad({ filter: file }, async (args) => {
        const pkg = JSON.parse(await readFile(join(args.path, "..", "..", "..", "package.json"), "utf8"));
        const subpath = (name) => {
          if (!(`./${name}` in pkg.exports)) throw new Error(`pi-ai exports no ./${name} for its provider`);
          return `@mariozechner/pi-ai/${name}`;
        };
        const bedrock = 'importNodeOnlyProvider("./amazon-bedrock.js")';
        let text = await readFile(args.path, "utf8");
        if (!text.includes(bedrock)) throw new Error(`pi-ai's register-builtins.js has no ${bedrock}`);
        text = text
          .replace(/import\("\.\/([\w-]+)\.js"\)/g, (_m, name) => `import("${subpath(name)}")`)
          .replace(bedrock, `import("${subpath("bedrock-provider")}").then((m) => m.bedrockProviderModule)`);
        // Any other relative import left would name a file beside the bundle.
        if (/import\w*\(\s*["'`]\.\.?\//.test(text))
          throw new Error("pi-ai's register-builtins.js kept a relative import");
        return { contents: text, loader: "js", resolveDir: dirname(args.path) };
      });
    },
  };
}

/**
 * In each of the package's compiled files, import.meta.url becomes that file's own URL, computed
 * from the bundle's at run time (the bundle and dist/src are published together), so a path a
 * module resolves against its own location is the same bundled or not.
 */
function ownImportMeta(dir) {
  const src = join(root, dir, "dist", "src") + sep;
  const bundleDir = join(root, dir, "dist", "bundle");
  return {
    name: "own-import-meta",
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, async (args) => {
        if (!args.path.startsWith(src)) return undefined;
        const text = await readFile(args.path, "utf8");
        if (!text.includes("import.meta.url")) return undefined;
        const own = JSON.stringify(relative(bundleDir, args.path).split(sep).join("/"));
        const contents = text.replace(/\bimport\.meta\.url\b/g, `new URL(${own}, import.meta.url).href`);
        return { contents, loader: "js", resolveDir: dirname(args.path) };
      });
    },
  };
}

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
  ...packages.map(async (p) => {
    await build({
      absWorkingDir: root,
      entryPoints: [`${p.dir}/dist/src/index.js`],
      outfile: `${p.dir}/dist/bundle/index.js`,
      bundle: true,
      format: "esm",
      platform: p.platform,
      target: p.platform === "node" ? "node20" : "es2022",
      plugins: [
        outsideBut(p.inline, p.inlineExact),
        ...(p.ownImportMeta ? [ownImportMeta(p.dir)] : []),
        ...(p.inlineExact?.includes("@mariozechner/pi-ai") ? [piAiProviders()] : []),
      ],
      // Stack traces keep readable names; the files are not minified.
      minify: false,
      logLevel: "warning",
    });
    if (p.notices) await writeNotices(p);
  }),
]);
