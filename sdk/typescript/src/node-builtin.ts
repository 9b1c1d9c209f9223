/**
 * A Node built-in loaded at its first use instead of at the SDK's import, synchronously, for APIs
 * few extensions call (openTerminal, publishArtifact). In a fresh process an ESM import of
 * node:crypto costs about 6 ms, node:tty about 4 and node:fs about 3 (its ESM facade reads every
 * export, which loads the stream classes): together a tenth of an extension's start, paid by
 * every extension.
 */
import { createRequire } from "node:module";

let requireBuiltin: ((id: string) => unknown) | undefined;

export function nodeBuiltin<T>(id: `node:${string}`): T {
  // process.getBuiltinModule is Node 20.16+; createRequire is the same module table before it.
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (get) return get(id) as T;
  requireBuiltin ??= createRequire(import.meta.url);
  return requireBuiltin(id) as T;
}
