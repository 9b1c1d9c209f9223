/**
 * The Python SDK's menu rules (sdk/python/octet_extension/menu_rules.py) against the TypeScript
 * ones they port (validateMenu, packages/protocol/src/api/validate-menu.ts): the same menus give
 * the same checked menu or the same problems, so the two SDKs cannot drift apart unnoticed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { validateMenu } from "@octet/protocol";
import { ROOT } from "./helpers.js";

const action = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  label: id.toUpperCase(),
  command: "greet",
  ...extra,
});
const nest = (depth: number): Record<string, unknown> => ({
  id: `l${depth}`,
  label: "L",
  items: depth === 0 ? [] : [nest(depth - 1)],
});

const MENUS: unknown[] = [
  {
    title: "M",
    status: { state: "ok", label: "fine", x: 1 },
    detail: null,
    extra: true,
    items: [action("a", { arguments: ["x"], recommended: true }), { id: "s", label: "S", items: [action("b")] }],
  },
  { title: " ", items: [] },
  { title: 5, items: [] },
  { items: [] },
  { title: "M" },
  [1],
  null,
  { title: "M", items: [action("a", { command: "nope" })] },
  { title: "M", items: [action("a"), action("a"), action("b"), action("b")] },
  { title: "M", items: [action("a", { recommended: true }), action("b", { recommended: true })] },
  { title: "M", items: [action("a/b")] },
  { title: "M", items: [{ id: "s", label: "S", command: "greet", arguments: [], destructive: true, items: [] }] },
  { title: "M", items: [action("a", { arguments: ["x", 1], destructive: "yes", description: 3 })] },
  { title: "M", status: { state: "", label: 3 }, detail: 4, items: [5, { id: "" }] },
  { title: "M", items: Array.from({ length: 257 }, (_, i) => action(`i${i}`)) },
  { title: "M", items: [nest(4), nest(3), nest(5)] },
  {
    title: "M",
    items: [
      { id: "a b", label: "L", command: "greet" },
      { id: "a b", label: "L", command: "greet" },
    ],
  },
  { title: "M", items: [action("a", { description: "x".repeat(270_000) })] },
];

/** "at least N bytes": where each walk stopped counting differs; the rule and the limit do not. */
const sameSize = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v).replace(/at least \d+ bytes/g, "at least N bytes"));

test("issue 13 review: Python's menu rules give the TypeScript SDK's checked menu or problems, word for word", () => {
  const script =
    "import json, sys\nfrom octet_extension.menu_rules import menu_problems\n" +
    "out = []\nfor m in json.load(sys.stdin):\n    menu, problems = menu_problems(m, ['greet'])\n" +
    "    out.append({'ok': True, 'value': menu} if menu is not None else {'ok': False, 'problems': problems})\n" +
    "print(json.dumps(out))\n";
  const env = { ...process.env, PYTHONPATH: join(ROOT, "sdk", "python") };
  const r = spawnSync("python3", ["-c", script], { input: JSON.stringify(MENUS), encoding: "utf8", env });
  assert.equal(r.status, 0, r.stderr);
  const python = JSON.parse(r.stdout) as unknown[];
  MENUS.forEach((menu, i) => {
    const ts = validateMenu(menu, ["greet"]);
    assert.deepEqual(sameSize(python[i]), sameSize(ts), `menu ${i}: ${JSON.stringify(menu).slice(0, 200)}`);
  });
});
