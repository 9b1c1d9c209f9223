/**
 * The conformance suite: every transcript (transcripts/<ID>.json) against every implementation in
 * the registry, at every API version both the transcript and the implementation list, as
 * "<impl> <ID>: <title>" with one subtest per API version. A skipped transcript prints its reason.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { API_VERSIONS } from "./contract.js";
import { IMPLEMENTATIONS, ROOT } from "./implementations.js";
import { runTranscript } from "./runner.js";
import { loadTranscripts } from "./transcript.js";

process.on("unhandledRejection", (err) => {
  throw err;
});

const transcripts = loadTranscripts(join(ROOT, "tests", "conformance", "transcripts"));
// Each transcript is a few real processes; two at a time keeps deadlines honest on a small machine.
const CONCURRENCY = 2;

for (const impl of IMPLEMENTATIONS) {
  test(`conformance: ${impl.name}`, { concurrency: CONCURRENCY }, async (t) => {
    const known = new Set(transcripts.map((tr) => tr.id));
    const stale = Object.keys(impl.skip ?? {}).filter((id) => !known.has(id));
    assert.deepEqual(stale, [], `${impl.name} skips transcripts that do not exist`);
    const apis = impl.apis ?? API_VERSIONS;
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
          for (const api of versions) await t2.test(`API ${api}`, () => runTranscript(impl, tr, api));
        }),
      ),
    );
  });
}
