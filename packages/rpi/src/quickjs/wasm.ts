/**
 * The few WebAssembly JS API members the engine uses, typed here because the package compiles
 * against lib ES2022 without the DOM, where the WebAssembly namespace is declared.
 */

/** A compiled WebAssembly.Module (opaque; it crosses to workers by structured clone). */
export interface WasmModule {
  readonly __wasmModule?: never;
}

export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(deltaPages: number): number;
}

interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Memory: { new (descriptor: { initial: number; maximum: number }): WasmMemory; prototype: WasmMemory };
}

export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
