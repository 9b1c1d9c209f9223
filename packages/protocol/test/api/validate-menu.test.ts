import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { generatedMenu, validateMenu } from "../../src/api/validate-menu.js";
import type { CommandDefinition } from "../../src/api/types.js";
import {
  MAX_COMMANDS,
  MAX_DESCRIPTION_BYTES,
  MAX_MENU_BYTES,
  MAX_MENU_ITEMS,
  MAX_MENU_LEVELS,
} from "../../src/bounds.js";
import { accepted, refused } from "../helpers/checked.js";
import { MENU_RESULT } from "../helpers/spec-fixtures.js";

const DECLARED = ["computer-use", "run"];

function action(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, label: `Label ${id}`, command: "run", arguments: [], ...extra };
}

function submenu(id: string, items: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, label: `Menu ${id}`, items, ...extra };
}

function menu(items: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { title: "T", items, ...extra };
}

/** Items nested `levels` deep: levels-1 submenus around one action (the menu's own items are level 1). */
function nestedItems(levels: number, last: unknown[] = [action("leaf")]): unknown[] {
  let items = last;
  for (let level = levels; level > 1; level--) items = [submenu(`m${level}`, items)];
  return items;
}

function actions(n: number, prefix = "a"): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, i) => action(`${prefix}${i}`));
}

test("MENU-04: the ExtensionMenu of the spec is accepted as sent", () => {
  assert.deepEqual(accepted(validateMenu(MENU_RESULT, DECLARED)), MENU_RESULT);
});

test("MENU-04: title is required and non-blank; status and detail are optional; items is required", () => {
  assert.deepEqual(accepted(validateMenu(menu([]), DECLARED)), { title: "T", items: [] });
  assert.deepEqual(accepted(validateMenu(menu([], { status: null, detail: null }), DECLARED)), {
    title: "T",
    items: [],
  });
  refused(validateMenu({ items: [] }, DECLARED), "title: missing; expected a string");
  refused(validateMenu(menu([], { title: " " }), DECLARED), "title: must not be empty");
  refused(validateMenu({ title: "T" }, DECLARED), "items: missing; expected an array");
  refused(validateMenu(menu([], { detail: 1 }), DECLARED), "detail: expected a string, got number");
  refused(validateMenu([], DECLARED), "expected an object, got array");
});

test("MENU-04: status is {state, label}, both strings, state non-blank", () => {
  const status = { state: "ready", label: "" };
  assert.deepEqual(accepted(validateMenu(menu([], { status }), DECLARED)).status, status);
  refused(validateMenu(menu([], { status: "ready" }), DECLARED), "status: expected an object, got string");
  refused(validateMenu(menu([], { status: { label: "x" } }), DECLARED), "status.state: missing; expected a string");
  refused(validateMenu(menu([], { status: { state: "", label: "x" } }), DECLARED), "status.state: must not be empty");
  refused(
    validateMenu(menu([], { status: { state: "ok", label: 3 } }), DECLARED),
    "status.label: expected a string, got number",
  );
});

test("MENU-05: an action is {id, label, command, arguments[], recommended?, description?, destructive?}", () => {
  const full = action("x", { arguments: ["a", "b"], recommended: false, description: "d", destructive: true });
  assert.deepEqual(accepted(validateMenu(menu([full]), DECLARED)).items, [full]);
  // An absent or null arguments reads as [] (the generated menu's shape).
  const bare = { id: "x", label: "X", command: "run" };
  assert.deepEqual(accepted(validateMenu(menu([bare]), DECLARED)).items, [{ ...bare, arguments: [] }]);
  assert.deepEqual(accepted(validateMenu(menu([{ ...bare, arguments: null }]), DECLARED)).items, [
    { ...bare, arguments: [] },
  ]);
  refused(
    validateMenu(menu([action("x", { arguments: "setup" })]), DECLARED),
    "items[0].arguments: expected an array, got string",
  );
  refused(
    validateMenu(menu([action("x", { arguments: ["a", 1] })]), DECLARED),
    "items[0].arguments[1]: expected a string, got number",
  );
  refused(
    validateMenu(menu([action("x", { recommended: "yes" })]), DECLARED),
    "items[0].recommended: expected a boolean, got string",
  );
  refused(
    validateMenu(menu([action("x", { destructive: 1 })]), DECLARED),
    "items[0].destructive: expected a boolean, got number",
  );
  refused(
    validateMenu(menu([action("x", { description: [] })]), DECLARED),
    "items[0].description: expected a string, got array",
  );
  refused(
    validateMenu(menu([action("x", { command: undefined })]), DECLARED),
    "items[0].command: missing; expected a string",
  );
  refused(validateMenu(menu([action("", {})]), DECLARED), "items[0].id: must not be empty");
  refused(validateMenu(menu([action("x", { label: "" })]), DECLARED), "items[0].label: must not be empty");
  refused(validateMenu(menu(["setup"]), DECLARED), "items[0]: expected an object, got string");
});

test("MENU-05: a submenu is {id, label, items[]}; unknown members anywhere are ignored and not carried over", () => {
  const sub = submenu("s", [action("x")]);
  assert.deepEqual(accepted(validateMenu(menu([sub]), DECLARED)).items, [sub]);
  const noisy = menu([submenu("s", [action("x", { icon: "*" })], { color: "red" })], { theme: "dark" });
  assert.deepEqual(accepted(validateMenu(noisy, DECLARED)), menu([sub]));
  refused(
    validateMenu(menu([submenu("s", "x" as unknown as unknown[])]), DECLARED),
    "items[0].items: expected an array, got string",
  );
  refused(
    validateMenu(menu([submenu("s", [{ id: "y", label: "Y", command: "nope" }])]), DECLARED),
    'items[0].items[0].command: "nope"',
  );
});

test("MENU-06: an action routed to an undeclared command rejects the whole menu, at any level", () => {
  refused(
    validateMenu(menu([action("x", { command: "rm" })]), DECLARED),
    `items[0].command: "rm" is not one of the extension's declared commands`,
  );
  refused(
    validateMenu(menu(nestedItems(MAX_MENU_LEVELS, [action("deep", { command: "rm" })])), DECLARED),
    'items[0].items[0].items[0].items[0].command: "rm" is not one of',
  );
  refused(validateMenu(MENU_RESULT, []), '"computer-use" is not one of the extension\'s declared commands');
  // Matching is exact.
  refused(validateMenu(menu([action("x", { command: "Run" })]), DECLARED), '"Run" is not one of');
});

test("MENU-07: 256 items across all levels are accepted, 257 are refused naming count and limit", () => {
  // 199 actions and one submenu at level 1, 56 actions at level 2: 256 items.
  const ok = menu([...actions(199), submenu("s", actions(56, "b"))]);
  accepted(validateMenu(ok, DECLARED));
  const over = menu([...actions(199), submenu("s", actions(57, "b"))]);
  refused(validateMenu(over, DECLARED), "items: 257 items across all levels, over the 256-item limit");
  refused(
    validateMenu(menu(actions(MAX_MENU_ITEMS + 1)), DECLARED),
    "items: 257 items across all levels, over the 256-item limit",
  );
});

test("MENU-07: 4 levels are accepted, 5 are refused naming the depth, the limit and where", () => {
  accepted(validateMenu(menu(nestedItems(MAX_MENU_LEVELS)), DECLARED));
  refused(
    validateMenu(menu(nestedItems(MAX_MENU_LEVELS + 1)), DECLARED),
    "items[0].items[0].items[0].items[0].items: 5 levels of menu, over the 4-level limit",
  );
  // An empty submenu still opens a level.
  refused(
    validateMenu(menu(nestedItems(MAX_MENU_LEVELS, [submenu("empty", [])])), DECLARED),
    "5 levels of menu, over the 4-level limit",
  );
});

test("MENU-07: a menu nested 10,000 levels deep is refused by counting, without recursing into it", () => {
  let items: unknown[] = [];
  for (let i = 0; i < 10_000; i++) items = [{ items }];
  refused(validateMenu(menu(items), DECLARED), "10001 levels of menu, over the 4-level limit");
});

test("MENU-08: ids must be unique within a level; the same id on different levels is fine", () => {
  refused(
    validateMenu(menu([action("x"), action("y"), action("x")]), DECLARED),
    'items: duplicate ids "x" in one level',
  );
  refused(
    validateMenu(menu([submenu("s", [action("a"), submenu("a", [])])]), DECLARED),
    'items[0].items: duplicate ids "a" in one level',
  );
  accepted(validateMenu(menu([action("x"), submenu("s", [action("x"), submenu("t", [action("x")])])]), DECLARED));
});

test("MENU-08: at most one recommended item per level", () => {
  const rec = { recommended: true };
  refused(
    validateMenu(menu([action("a", rec), action("b", rec)]), DECLARED),
    "items: 2 recommended items in one level; at most one is allowed",
  );
  refused(
    validateMenu(menu([submenu("s", [action("a", rec), action("b", rec), action("c", rec)])]), DECLARED),
    "items[0].items: 3 recommended items in one level",
  );
  accepted(
    validateMenu(
      menu([action("a", rec), action("b", { recommended: false }), submenu("s", [action("a", rec)])]),
      DECLARED,
    ),
  );
});

test("MENU-09: a submenu carrying arguments or destructive (or a command) rejects the whole menu", () => {
  for (const [key, value] of [
    ["arguments", []],
    ["arguments", ["x"]],
    ["destructive", false],
    ["destructive", true],
    ["command", "run"],
  ] as const) {
    refused(
      validateMenu(menu([submenu("s", [action("x")], { [key]: value })]), DECLARED),
      `items[0].${key}: not allowed on a submenu`,
    );
  }
  // null reads as absent, as for every optional member.
  accepted(validateMenu(menu([submenu("s", [action("x")], { arguments: null, destructive: null })]), DECLARED));
});

test("MENU-10: a menu of exactly 256 KiB encoded is accepted, one byte more is refused naming size and limit", () => {
  const sized = (n: number): Record<string, unknown> => {
    const m = menu([action("x")], { detail: "" });
    m["detail"] = "d".repeat(n - JSON.stringify(m).length);
    assert.equal(JSON.stringify(m).length, n);
    return m;
  };
  accepted(validateMenu(sized(MAX_MENU_BYTES), DECLARED));
  refused(
    validateMenu(sized(MAX_MENU_BYTES + 1), DECLARED),
    "menu of at least",
    "bytes encoded, over the 262144-byte limit",
  );
  // Multi-byte text counts in UTF-8 bytes.
  const wide = menu([], { detail: "é".repeat(MAX_MENU_BYTES / 2) });
  refused(validateMenu(wide, DECLARED), "over the 262144-byte limit");
});

test("MENU-03: the generated fallback has one action per declared command, in order, with no arguments", () => {
  const commands: CommandDefinition[] = [
    { name: "computer-use", description: "Set up computer use", usage: "/computer-use [setup]" },
    { name: "run", description: "Run it", usage: "/run" },
  ];
  const m = generatedMenu(commands, "Computer use");
  assert.deepEqual(m, {
    title: "Computer use",
    items: [
      {
        id: "computer-use",
        label: "computer-use",
        command: "computer-use",
        arguments: [],
        description: "Set up computer use",
      },
      { id: "run", label: "run", command: "run", arguments: [], description: "Run it" },
    ],
  });
  assert.deepEqual(accepted(validateMenu(m, DECLARED)), m);
  assert.deepEqual(generatedMenu([], "Empty"), { title: "Empty", items: [] });
});

test(
  "MENU-03: a generated menu of 256 commands with 16 KiB descriptions drops the descriptions to stay " +
    "within 256 KiB",
  () => {
    const commands: CommandDefinition[] = Array.from({ length: MAX_COMMANDS }, (_, i) => ({
      name: `c${i}`.padEnd(128, "x"),
      description: "d".repeat(MAX_DESCRIPTION_BYTES),
      usage: "",
    }));
    const m = generatedMenu(commands, "Big");
    assert.equal(m.items.length, MAX_COMMANDS);
    assert.equal(
      m.items.some((item) => "description" in item),
      false,
    );
    accepted(
      validateMenu(
        m,
        commands.map((c) => c.name),
      ),
    );
  },
);

test("MENU-03: the generated menu of any valid command catalog passes validateMenu", () => {
  const name = fc.stringMatching(/^[A-Za-z0-9_-]{1,128}$/);
  const catalog = fc.uniqueArray(
    fc.record({ name, description: fc.string({ minLength: 1, maxLength: 64 }), usage: fc.string() }),
    {
      selector: (c) => c.name,
      maxLength: MAX_COMMANDS,
    },
  );
  fc.assert(
    fc.property(catalog, (commands) => {
      const m = generatedMenu(commands, "Extension");
      accepted(
        validateMenu(
          m,
          commands.map((c) => c.name),
        ),
      );
      return m.items.length === commands.length;
    }),
    { numRuns: 50 },
  );
});

test("a refused menu reports problems across items together", () => {
  const problems = refused(
    validateMenu(menu([action("x", { command: "nope" }), action("x", { label: "" })], { title: "" }), DECLARED),
  );
  for (const start of ["title:", "items[0].command:", "items[1].label:", "items: duplicate ids"]) {
    assert.ok(
      problems.some((p) => p.startsWith(start)),
      `${start}\n${problems.join("\n")}`,
    );
  }
});

test("validateMenu never throws, whatever the input", () => {
  fc.assert(
    fc.property(fc.anything(), fc.anything(), (v, w) => {
      validateMenu(v, DECLARED);
      validateMenu(
        menu([v, submenu("s", [w, v] as unknown[]), action("a", { arguments: v, recommended: w })], {
          status: v,
          detail: w,
        }),
        DECLARED,
      );
      validateMenu(menu(v as unknown[]), DECLARED);
      return true;
    }),
    { numRuns: 300 },
  );
});

test('MENU-08: an item id containing "/" is refused, since hosts address actions by id path', () => {
  const r = validateMenu({ title: "t", items: [{ id: "a/b", label: "A", command: "setup", arguments: [] }] }, [
    "setup",
  ]);
  assert.equal(r.ok, false);
  assert.match(r.ok ? "" : r.problems.join(";"), /"a\/b" contains "\/"/);
});
