// Issue 13 review, item 1: the rpi invocation context is built and encoded once per catalog
// epoch, not per call, and a large one is said once per epoch. Through a real host, a real
// QuickJS worker and the dynamic-tools example, whose `register` changes the host's catalog.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost, type HostEvent } from "@octet/host";
import { rpiRuntime } from "@octet/rpi";
import { EXAMPLES } from "./helpers.js";

// 160 commands with 1,800-character descriptions: about 290 KB of context, past a quarter of
// the 1 MiB frame limit, so every context of this host is sent without the descriptions.
const BIG_CATALOG = `
export default function (pi) {
  const description = "d".repeat(1800);
  for (let i = 0; i < 160; i++) pi.registerCommand("cmd" + i, { description, handler: async () => "ran" });
  const seen = () => ({
    tools: pi.getAllTools().map((t) => t.name).sort(),
    commands: pi.getCommands().length,
    described: pi.getCommands().filter((c) => c.description).length,
  });
  const parameters = { type: "object", properties: {} };
  const execute = async () => ({ content: [{ type: "text", text: JSON.stringify(seen()) }] });
  pi.registerTool({ name: "snapshot", label: "snapshot", description: "what the context said", parameters, execute });
}
`;

let dir = "";
let host: ExtensionHost;
const events: HostEvent[] = [];
const contextWarnings = (): string[] =>
  events.flatMap((e) => {
    const ours = e.type === "diagnostic" && e.extension === "bigcat" && /invocation context is \d+/.test(e.message);
    return ours ? [e.message] : [];
  });

interface Seen {
  tools: string[];
  commands: number;
  described: number;
}
const snapshot = async (): Promise<Seen> => JSON.parse((await host.callTool("snapshot", {})).text) as Seen;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "octet-context-"));
  await mkdir(join(dir, "bigcat"));
  await writeFile(join(dir, "bigcat", "index.mjs"), BIG_CATALOG);
  await writeFile(
    join(dir, "bigcat", "pi-extension.json"),
    JSON.stringify({
      schemaVersion: 1,
      id: "bigcat",
      runtime: "quickjs",
      entry: "./index.mjs",
      capabilities: ["commands", "tools"],
      uiCapabilities: [],
    }),
  );
  host = await ExtensionHost.start({
    extensionDirs: [dir, EXAMPLES],
    workspace: dir,
    enable: ["bigcat", "dynamic-tools"],
    octetHome: join(dir, "home"),
    runtimes: [rpiRuntime()],
    services: { dynamicTools: true },
    onEvent: (e) => events.push(e),
  });
});

after(async () => {
  await host.shutdown();
  await rm(dir, { recursive: true, force: true });
});

test("issue 13 review: the rpi context is built once per catalog epoch, again after a change, said once", async () => {
  assert.equal(host.status().find((s) => s.name === "bigcat")?.state, "ready");
  for (let i = 0; i < 5; i++) {
    const seen = await snapshot();
    assert.deepEqual(seen.tools, ["register", "snapshot", "unregister"]);
    assert.equal(seen.commands, 160);
    assert.equal(seen.described, 0, "the descriptions do not fit a quarter of the frame limit");
  }
  assert.equal(contextWarnings().length, 1, contextWarnings().join("\n"));
  const trimmed = "over a quarter of the 1048576-byte frame limit; it is sent without the command descriptions";
  assert.match(contextWarnings()[0]!, new RegExp(`^the invocation context is \\d+ bytes, ${trimmed}$`));

  // A new epoch: dynamic-tools publishes one more tool.
  const published = await host.callTool("register", { tools: [{ name: "greet", reply: "hi" }] });
  assert.equal(published.is_error, false, published.text);
  for (let i = 0; i < 3; i++) {
    assert.deepEqual((await snapshot()).tools, ["greet", "register", "snapshot", "unregister"]);
  }
  assert.equal(contextWarnings().length, 2, contextWarnings().join("\n"));
});
