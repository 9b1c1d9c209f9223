// pi's ctx.ui calls that have an octet home, through the real host and QuickJS (issue 17, item 7):
// select with {value, label} options, the working-row chrome accepted, setHeader/setFooter as
// text on octet's header and footer status surfaces, setEditorText/getEditorText on the composer
// (the host's frontend service, as the shell binds it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost, type FrontendService, type HostEvent } from "@octet/host";
import { rpiRuntime } from "@octet/rpi";

const UI = `import { Type } from "@sinclair/typebox";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Text } from "@mariozechner/pi-tui";

let bumps = 0;
let footerTui: { requestRender(): void } | undefined;

export default function (pi: ExtensionAPI) {
  const tool = (name: string, execute: (ctx: any) => Promise<string>) =>
    pi.registerTool({
      name,
      description: name,
      parameters: Type.Object({}),
      async execute(_id: string, _p: unknown, _s: unknown, _u: unknown, ctx: any) {
        return { content: [{ type: "text", text: await execute(ctx) }] };
      },
    });
  tool("pick", async (ctx) => {
    const fruit = await ctx.ui.select("Fruit?", [{ value: "a1", label: "Apple" }, { value: "b2", label: "Banana" }]);
    const plain = await ctx.ui.select("Plain?", ["x", "y"]);
    return JSON.stringify({ fruit, plain });
  });
  tool("chrome", async (ctx) => {
    ctx.ui.setWorkingVisible(false);
    ctx.ui.setWorkingIndicator({ frames: ["*"] });
    ctx.ui.setHiddenThinkingLabel("thinking...");
    ctx.ui.setWorkingMessage("busy");
    await ctx.ui.setHeader(() => new Text("my header", 0, 0));
    await ctx.ui.setFooter((tui: any, theme: any, data: any) => {
      footerTui = tui;
      return {
        invalidate() {},
        render: (width: number) => [theme.fg("dim", "footer " + bumps + " at " + width + " " + data.getGitBranch())],
      };
    });
    return "ok";
  });
  tool("bump", async () => {
    bumps++;
    footerTui?.requestRender();
    return "bumped";
  });
  tool("unfooter", async (ctx) => {
    await ctx.ui.setFooter(undefined);
    return "cleared";
  });
  tool("editor", async (ctx) => {
    const before = await ctx.ui.getEditorText();
    await ctx.ui.setEditorText("draft: " + before);
    return before;
  });
}
`;

async function withHost(
  frontend: FrontendService | null,
  fn: (host: ExtensionHost, events: HostEvent[], asked: unknown[]) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "octet-pi-ui-"));
  await writeFile(join(dir, "chrome.ts"), UI);
  const events: HostEvent[] = [];
  const asked: unknown[] = [];
  const host = await ExtensionHost.start({
    workspace: dir,
    octetHome: join(dir, "home"),
    enable: ["chrome"],
    runtimes: [
      rpiRuntime({
        piExtensions: ["chrome.ts"],
        piCacheDir: join(dir, "cache"),
        timeouts: { handshakeMs: 30_000 },
        // The embedder's select: answers the second option shown.
        services: {
          ui: async (request) => {
            if (request.type !== "select") return undefined;
            asked.push(request["options"]);
            return { value: (request["options"] as string[])[1] };
          },
        },
      }),
    ],
    onEvent: (e) => events.push(e),
    ...(frontend ? { services: { frontend } } : {}),
  });
  try {
    const s = host.status().find((x) => x.name === "chrome");
    assert.equal(s?.state, "ready", s?.lastError ?? "");
    await fn(host, events, asked);
  } finally {
    await host.shutdown();
    await rm(dir, { recursive: true, force: true });
  }
}

const surfaceTexts = (events: HostEvent[], surface: string): string[] =>
  events.flatMap((e) => (e.type === "status" && e.contribution.surface === surface ? [e.contribution.text] : []));

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(check(), what);
}

test("ctx.ui.select with {value, label} options shows the labels and answers the value; strings as before", {
  timeout: 60_000,
}, async () => {
  await withHost(null, async (host, _events, asked) => {
    const r = await host.callTool("pick", {});
    assert.deepEqual(JSON.parse(r.text), { fruit: "b2", plain: "y" });
    assert.deepEqual(asked, [
      ["Apple", "Banana"],
      ["x", "y"],
    ]);
  });
});

test("setHeader/setFooter as text on the header and footer surfaces; requestRender redraws; working chrome no-ops", {
  timeout: 60_000,
}, async () => {
  await withHost(null, async (host, events) => {
    assert.equal((await host.callTool("chrome", {})).text, "ok");
    assert.deepEqual(surfaceTexts(events, "header"), ["my header"]);
    assert.deepEqual(surfaceTexts(events, "footer"), ["footer 0 at 100 null"]);
    await host.callTool("bump", {});
    await until("the footer is drawn again", () => surfaceTexts(events, "footer").length === 2);
    assert.equal(surfaceTexts(events, "footer")[1], "footer 1 at 100 null");
    const footer = host.contributions().status.find((c) => c.surface === "footer");
    assert.equal(footer?.text, "footer 1 at 100 null");
    await host.callTool("unfooter", {});
    assert.equal(surfaceTexts(events, "footer").at(-1), "", "undefined clears the footer");
    await host.callTool("bump", {});
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(surfaceTexts(events, "footer").length, 3, "a disposed footer does not draw again");
  });
});

test("setEditorText/getEditorText act on the host's composer; without one they refuse naming composer", async () => {
  const line = { text: "hello" };
  const frontend: FrontendService = {
    interactive: () => true,
    composer: {
      get: () => line.text,
      set: (t) => void (line.text = t),
      insert: (t) => void (line.text += t),
    },
  };
  await withHost(frontend, async (host) => {
    assert.equal((await host.callTool("editor", {})).text, "hello");
    assert.equal(line.text, "draft: hello");
  });
  await withHost(null, async (host) => {
    const r = await host.callTool("editor", {});
    assert.equal(r.is_error, true);
    assert.match(r.text, /did not offer composer \(composer\/get\)/);
  });
});
