/**
 * --policy FILE and --secret NAME=ENV_VAR through the real `octet` binary and the guarded example.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { EXAMPLES, runCli } from "./helpers.js";
import { plain, runOnPty } from "./pty.js";

const SECRET = "cli-s3cret-9e8d7c";
const FP = createHash("sha256").update(SECRET).digest("hex").slice(0, 12);
const BASE = ["--extension-dir", EXAMPLES, "--enable-extension", "guarded"];
const POLICY = join(EXAMPLES, "guarded", "policy.toml");

async function withFile<T>(name: string, text: string, body: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "octet-cli-pol-"));
  try {
    await writeFile(join(dir, name), text);
    return await body(join(dir, name));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test(
  "POL-05, SEC-02: --policy allows an allowed operation and " + "--secret hands the named variable to the broker",
  async () => {
    const r = await runCli(
      [
        ...BASE,
        "--policy",
        POLICY,
        "--secret",
        "guarded.api_token=GUARDED_TOKEN",
        "--verbose",
        "call",
        "publish",
        '{"text":"hi","preview":true}',
      ],
      { env: { GUARDED_TOKEN: SECRET } },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), `previewed "hi" with token sha256:${FP}`);
    assert.equal(
      `${r.stdout}${r.stderr}`.includes(SECRET),
      false,
      "SEC-07: the value is never printed, even with --verbose",
    );
  },
);

test('POL-07: an "ask" without a terminal is denied and said so on stderr; --yes does not approve it', async () => {
  for (const extra of [[], ["--yes"]]) {
    const r = await runCli(
      [
        ...BASE,
        ...extra,
        "--policy",
        POLICY,
        "--secret",
        "guarded.api_token=GUARDED_TOKEN",
        "call",
        "publish",
        '{"text":"hi"}',
      ],
      { env: { GUARDED_TOKEN: SECRET } },
    );
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /not published: the host's policy did not allow guarded\.publish/);
    assert.match(
      r.stderr,
      new RegExp(
        String.raw`\[guarded\] policy asks to allow guarded\.publish \(Publish "hi", ` +
          String.raw`https:\/\/example\.invalid\): denied, no terminal to ask`,
      ),
    );
  }
});

test("POL-05: a JSON policy works the same, and operations it does not list are denied", async () => {
  await withFile("p.json", JSON.stringify({ operations: { "guarded.publish": "allow" } }), async (file) => {
    const ok = await runCli(
      [...BASE, "--policy", file, "--secret", "guarded.api_token=GUARDED_TOKEN", "call", "publish", '{"text":"x"}'],
      { env: { GUARDED_TOKEN: SECRET } },
    );
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout.trim(), `published "x" with token sha256:${FP}`);
    const denied = await runCli([...BASE, "--policy", file, "call", "publish", '{"text":"x","preview":true}']);
    assert.equal(denied.code, 1);
    assert.match(denied.stdout, /did not allow guarded\.preview/);
  });
});

test(
  "SEC-06: --secret naming an unset variable yields the generic unavailable error; without --policy nothing is " +
    "attempted",
  async () => {
    const r = await runCli([
      ...BASE,
      "--policy",
      POLICY,
      "--secret",
      "guarded.api_token=OCTET_TEST_UNSET_VARIABLE",
      "call",
      "publish",
      '{"text":"x","preview":true}',
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /the API token is unavailable \(secret_unavailable secret is unavailable\)/);
    const none = await runCli([...BASE, "call", "publish", '{"text":"x","preview":true}']);
    assert.equal(none.code, 1);
    assert.match(none.stdout, /this host offers no policy service/);
  },
);

test("--policy and --secret: malformed values are usage errors (exit 2) naming the value", async () => {
  const cases: [string[], RegExp][] = [
    [["--secret", "noequals"], /--secret "noequals": expected NAME=ENV_VAR/],
    [["--secret", "9bad=X"], /"9bad" is not a secret name/],
    [["--secret", "a=1X"], /"1X" is not an environment variable name/],
    [["--secret", "a=X", "--secret", "a=Y"], /--secret "a" is given twice/],
    [["--policy", "/nonexistent/p.toml"], /--policy \/nonexistent\/p\.toml: cannot read it \(ENOENT\)/],
    [["--policy", "p.yaml"], /must end in \.json or \.toml/],
  ];
  for (const [flags, expected] of cases) {
    const r = await runCli([...flags, "extensions", "list"]);
    assert.equal(r.code, 2, `${flags.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, expected);
  }
  await withFile("p.toml", '[operations]\n"guarded.publish" = "sometimes"\n', async (file) => {
    const r = await runCli(["--policy", file, "extensions", "list"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /operations\.guarded\.publish is "sometimes"; expected "allow", "ask" or "deny"/);
  });
});

test("INIT-29: with --policy and --secret, status shows policy_intents, approvals and secrets negotiated", async () => {
  const r = await runCli([
    ...BASE,
    "--policy",
    POLICY,
    "--secret",
    "guarded.api_token=GUARDED_TOKEN",
    "--json",
    "extensions",
    "status",
  ]);
  assert.equal(r.code, 0, r.stderr);
  const status = (JSON.parse(r.stdout) as { name: string; features: string[] }[]).find((s) => s.name === "guarded");
  for (const f of ["policy_intents", "approvals", "secrets"])
    assert.ok(status?.features.includes(f), `${f} in ${status?.features.join(",")}`);
});

test(
  'POL-07, POL-09: on a terminal an "ask" is put to the person; ' + "yes spends the token on the retry, no denies",
  async () => {
    for (const [key, code, expected] of [
      ["y", 0, `published "hi" with token sha256:${FP}`],
      ["n", 1, "not published: the host's policy did not allow guarded.publish"],
    ] as const) {
      const run = await runOnPty(
        [
          ...BASE,
          "--policy",
          POLICY,
          "--secret",
          "guarded.api_token=GUARDED_TOKEN",
          "call",
          "publish",
          '{"text":"hi"}',
        ],
        { stdoutToFile: true, env: { GUARDED_TOKEN: SECRET, NO_COLOR: "1" } },
      );
      try {
        await run.waitFor(
          /allow guarded\.publish: Publish "hi"[^]*target: https:\/\/example\.invalid[^]*data: user_text[^]*\[y\/N\] $/,
          "the approval question",
        );
        run.type(`${key}\r`);
        assert.equal(await run.exit(), code, run.output());
        assert.equal((await run.stdout()).trim(), expected);
        assert.equal(plain(run.output()).includes(SECRET), false);
      } finally {
        run.stop();
      }
    }
  },
);
