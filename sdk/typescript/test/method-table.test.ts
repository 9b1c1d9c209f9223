/**
 * issue 14.1: the SDK routes host requests by the protocol's method table. Every host request the
 * table declares (initialize and shutdown are the runtime's own) reaches a handler, and a name
 * the table does not carry to the extension on this version is an unknown method (-32601).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode, WireError, methodsFor, type RequestMessage } from "@octet/protocol";
import { route, type Registry } from "../src/dispatch.js";
import type { HandlerContext } from "../src/types.js";

const registry: Registry = {
  tools: new Map(),
  commands: new Map(),
  hooks: new Map(),
  renderers: new Map(),
  contextHandler: null,
  statusHandler: null,
  menuHandler: () => ({ title: "M", items: [] }),
};
const ctx = (context: unknown): HandlerContext => ({ context }) as unknown as HandlerContext;
const notAborted = { aborted: false };
const request = (method: string, params: unknown = {}): RequestMessage => ({ jsonrpc: "2.0", id: 1, method, params });
const code = async (method: string, api: "0.1" | "0.2" | "0.4" = "0.4"): Promise<number | "answered"> => {
  try {
    await route(request(method), registry, api, notAborted, ctx, new Set(["request_cancellation"]));
    return "answered";
  } catch (err) {
    return err instanceof WireError ? err.code : -1;
  }
};

test("issue 14.1: every host request of the table reaches a handler on each version that carries it", async () => {
  for (const api of ["0.1", "0.2", "0.4"] as const) {
    const declared = methodsFor({ direction: "host->child", apiVersion: api, features: [] });
    const requests = declared.filter((s) => s.kind === "request");
    for (const { method } of requests) {
      if (method === "initialize" || method === "shutdown") continue;
      // Empty params reach the method's own validation (-32602), or its handler: never -32601.
      assert.notEqual(await code(method, api), ErrorCode.MethodNotFound, `${method} on API ${api}`);
    }
  }
});

test("issue 14.1: a child's method, an undeclared name and a later version's method are unknown (-32601)", async () => {
  for (const method of ["confirmation/request", "artifact/publish", "$/progress", "no/such", "session/started"]) {
    assert.equal(await code(method), ErrorCode.MethodNotFound, method);
  }
  assert.equal(await code("menu/collect", "0.1"), ErrorCode.MethodNotFound);
  await assert.rejects(route(request("no/such"), registry, "0.4", notAborted, ctx), /method not found: no\/such$/);
});
