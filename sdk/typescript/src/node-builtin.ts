/**
 * A Node built-in loaded at its first use instead of at the SDK's import, synchronously, for APIs
 * few extensions call (openTerminal, publishArtifact). In a fresh process an ESM import of node:tty costs about
 * 4 ms and one of node:fs about 3 (its ESM facade reads every export, which loads the stream
 * classes): together a tenth of an extension's start, paid by every extension.
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
