/**
 * The conformance suite of one implementation: every transcript (transcripts/<ID>.json) at every
 * API version both the transcript and the implementation list, as "<impl> <ID>: <title>" with
 * one subtest per API version. A skipped transcript prints its reason. Each implementation has
 * its own test file (conformance-<impl>.test.ts), so that node runs them side by side and no
 * file carries the whole suite.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { API_VERSIONS } from "./contract.js";
import { IMPLEMENTATIONS, ROOT } from "./implementations.js";
import { ExtensionPool } from "./pool.js";
import { runTranscript } from "./runner.js";
import { loadTranscripts } from "./transcript.js";

// Each transcript is a few real processes; two at a time keeps deadlines honest on a small machine.
const CONCURRENCY = 2;

/** Registers the suite of the implementation named `name` in IMPLEMENTATIONS. */
export function conformanceSuite(name: string): void {
  process.on("unhandledRejection", (err) => {
    throw err;
  });
  const impl = IMPLEMENTATIONS.find((i) => i.name === name);
  if (!impl) throw new Error(`no implementation named ${JSON.stringify(name)} in IMPLEMENTATIONS`);
  const transcripts = loadTranscripts(join(ROOT, "tests", "conformance", "transcripts"));
  test(`conformance: ${impl.name}`, { concurrency: CONCURRENCY }, async (t) => {
    const known = new Set(transcripts.map((tr) => tr.id));
    const stale = Object.keys(impl.skip ?? {}).filter((id) => !known.has(id));
    assert.deepEqual(stale, [], `${impl.name} skips transcripts that do not exist`);
    const apis = impl.apis ?? API_VERSIONS;
    const pool = new ExtensionPool();
    t.after(() => pool.close());
    await Promise.all(
      transcripts.map((tr) =>
        t.test(`${impl.name} ${tr.id}: ${tr.title}`, async (t2) => {
          const reason = impl.skip?.[tr.id];
          if (reason !== undefined) {
            t2.diagnostic(`skipped for ${impl.name}: ${reason}`);
            t2.skip(reason);
            return;
          }
          const versions = tr.api.filter((a) => apis.includes(a));
          if (versions.length === 0) {
            t2.skip(`${impl.name} speaks none of API ${tr.api.join(", ")}`);
            return;
          }
          for (const api of versions) await t2.test(`API ${api}`, () => runTranscript(impl, tr, api, pool));
        }),
      ),
    );
  });
}
