/**
 * ext.menu(): menu/collect routed to the author's handler (issue 13.10 found that neither SDK
 * answered it). The menu is checked with the host's own rules before it is sent, so a broken one
 * is an error naming the rule in the extension; no handler, or API 0.1, is an unknown method, and
 * the host then shows its generated menu. (The whole path through a real host is in
 * tests/e2e/sdk-helper-matrix.test.ts.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode, WireError } from "@octet/protocol";
import { route, type Registry } from "../src/dispatch.js";
import type { HandlerContext, MenuHandler } from "../src/types.js";
import { CONTEXT } from "./harness.js";

function registry(menuHandler: MenuHandler | null): Registry {
  return {
    tools: new Map(),
    commands: new Map([
      ["greet", { definition: { name: "greet", description: "d", usage: "/greet" }, handler: () => "hi" }],
    ]),
    hooks: new Map(),
    renderers: new Map(),
    contextHandler: null,
    statusHandler: null,
    menuHandler,
  };
}
const request = { jsonrpc: "2.0" as const, id: 1, method: "menu/collect", params: { context: CONTEXT } };
const ctx = (context: unknown): HandlerContext => ({ context }) as unknown as HandlerContext;
const notAborted = { aborted: false };

test("issue 13.10: menu/collect answers the handler's menu, built with the request's ctx", async () => {
  const menu = await route(
    request,
    registry((c) => ({
      title: "M",
      detail: c.context?.workspace ?? "",
      items: [{ id: "a", label: "A", command: "greet", arguments: ["x"] }],
    })),
    "0.2",
    notAborted,
    ctx,
  );
  assert.deepEqual(menu, {
    title: "M",
    detail: CONTEXT.workspace,
    items: [{ id: "a", label: "A", command: "greet", arguments: ["x"] }],
  });
});

test(
  "issue 13.10: a menu whose action names an undeclared command is refused in the extension, " + "naming the rule",
  async () => {
    const bad = registry(() => ({ title: "M", items: [{ id: "a", label: "A", command: "nope", arguments: [] }] }));
    await assert.rejects(
      route(request, bad, "0.2", notAborted, ctx),
      (err: unknown) =>
        err instanceof WireError && err.code === ErrorCode.InternalError && /invalid menu: .*nope/.test(err.message),
    );
  },
);

test(
  "issue 13.10: without a menu handler, or on API 0.1, menu/collect is an unknown method (the host " +
    "generates a menu)",
  async () => {
    for (const [r, api] of [
      [registry(null), "0.2"],
      [registry(() => ({ title: "M", items: [] })), "0.1"],
    ] as const) {
      await assert.rejects(
        route(request, r, api, notAborted, ctx),
        (err: unknown) =>
          err instanceof WireError && err.code === ErrorCode.MethodNotFound && /registers no menu/.test(err.message),
      );
    }
  },
);

test("issue 13.10 (review): a second menu() is refused, as a second renderer for one tool is", async () => {
  const { Extension } = await import("../src/extension.js");
  const ext = new Extension({ apiVersion: "0.4" });
  ext.menu(() => ({ title: "M", items: [] }));
  assert.throws(
    () => ext.menu(() => ({ title: "N", items: [] })),
    /menu\(\) is registered twice; an extension has one menu handler/,
  );
});
