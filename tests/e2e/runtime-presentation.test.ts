/**
 * Presentation snapshots against real processes: the background-worker example (TS SDK,
 * ext.presentation.update) publishing a call-correlated snapshot and then background snapshots
 * under its issued owner, the host keeping the latest with its identity, actions that run only
 * the declared command when a person asks, and state that never outlives its generation.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ExtensionHost, type ExtensionHostOptions, type HostEvent, type PresentationRecord } from "@octet/host";
import { EXAMPLES, groupMembers, waitUntil } from "./helpers.js";

const NAME = "background-worker";

async function withWorker(
  services: ExtensionHostOptions["services"],
  body: (host: ExtensionHost, events: HostEvent[]) => Promise<void>,
): Promise<void> {
  const events: HostEvent[] = [];
  const host = await ExtensionHost.start({
    workspace: EXAMPLES,
    extensionDirs: [EXAMPLES],
    enable: [NAME],
    session: { session_id: "s-pres" },
    ...(services ? { services } : {}),
    onEvent: (e) => events.push(e),
  });
  // This host's groups, not every background-worker: another test file may run one meanwhile.
  const groups = new Set<number>();
  const note = (): void => {
    for (const s of host.status()) if (s.pgid !== null) groups.add(s.pgid);
  };
  try {
    assert.equal(host.status().find((s) => s.name === NAME)?.state, "ready");
    note();
    await body(host, events);
    note();
  } finally {
    await host.shutdown();
  }
  assert.ok(groups.size > 0, "the worker ran in a process group");
  for (const pgid of groups) assert.deepEqual(groupMembers(pgid), [], `group ${pgid} is empty after shutdown`);
}

function shown(events: HostEvent[]): PresentationRecord[] {
  return events.flatMap((e) => (e.type === "presentation" && e.presentation ? [e.presentation] : []));
}

test(
  "PRES-01, PRES-02, PRES-03, PRES-22: the example's call-time snapshot is owned through its request, its " +
    "background ones through the issued triple",
  async () => {
    await withWorker({ presentation: true }, async (host, events) => {
      const r = await host.callTool("start_job", { name: "index", steps: 3, step_ms: 20 });
      assert.equal(r.is_error, false, r.text);
      await waitUntil(
        () => host.presentation(NAME)?.snapshot.activities[0]?.state === "succeeded",
        10_000,
        "the job to finish",
      );
      const records = shown(events);
      const owner = { session_id: "s-pres", extension_instance_id: host.instanceId, process_generation: 1 };
      assert.equal(records[0]?.scope, "request", "published inside start_job: parent_request_id");
      assert.deepEqual(records[0]?.owner, owner);
      assert.ok(
        records.slice(1).every((x) => x.scope === "owner" && JSON.stringify(x.owner) === JSON.stringify(owner)),
        "background snapshots carry the issued triple",
      );
      assert.deepEqual(
        records.map((x) => x.revision),
        [0, 1, 2, 3],
      );
      const latest = host.presentation(NAME)!;
      assert.equal(latest.extension, NAME);
      assert.equal(latest.version, "0.1.0");
      assert.equal(latest.generation, 1);
      assert.equal(latest.revision, 3);
      const activity = latest.snapshot.activities[0]!;
      assert.deepEqual(activity.metrics, { tool_calls: 3, input_tokens: 300, output_tokens: 30, reasoning_tokens: 6 });
      assert.equal(latest.snapshot.collection?.kind, "tree");
      assert.deepEqual(
        latest.snapshot.collection?.nodes.map((n) => [n.id, n.parent_id ?? null]),
        [
          ["job1", null],
          ["job1/step1", "job1"],
          ["job1/step2", "job1"],
          ["job1/step3", "job1"],
        ],
      );
      assert.equal(latest.snapshot.collection?.detail?.node_id, "job1");
      assert.deepEqual(
        events.filter((e) => e.type === "diagnostic"),
        [],
      );
    });
  },
);

test(
  "PRES-15, PRES-23, PRES-25: an action runs only when asked, routed to the declared command with its literal " +
    "arguments; destructive ones need a confirmation; a stale view is refused",
  async () => {
    const asked: string[] = [];
    let answer = false;
    await withWorker({ presentation: true, confirm: async (q) => (asked.push(q.prompt), answer) }, async (host) => {
      await host.callTool("start_job", { name: "long", steps: 50, step_ms: 60_000 });
      const first = host.presentation(NAME)!;
      const cancel = first.snapshot.actions.find((a) => a.id === "cancel:job1")!;
      assert.deepEqual(cancel, {
        id: "cancel:job1",
        label: "Cancel long",
        command: "jobs",
        arguments: ["cancel", "job1"],
        destructive: true,
      });
      // Publishing the snapshot ran nothing: the job is still running.
      assert.equal(first.snapshot.activities[0]?.state, "running");
      await assert.rejects(host.runPresentationAction(NAME, "cancel:job1"), /was not confirmed/);
      assert.deepEqual(asked, ['Run "Cancel long"?']);
      assert.equal(host.presentation(NAME)?.snapshot.activities[0]?.state, "running");
      await assert.rejects(
        host.runPresentationAction(NAME, "nope"),
        /has no action "nope"; its actions: cancel:job1, clear/,
      );
      answer = true;
      const at = { instance: first.instance, generation: first.generation, revision: first.revision };
      const result = await host.runPresentationAction(NAME, "cancel:job1", { at });
      assert.equal(result.text, "cancelled job1");
      await waitUntil(
        () => host.presentation(NAME)?.snapshot.activities[0]?.state === "cancelled",
        5_000,
        "the cancelled snapshot",
      );
      // The person's view (revision 0) is now stale: its identity no longer matches.
      await assert.rejects(host.runPresentationAction(NAME, "clear", { at }), /changed .*look at it again/);
      const cleared = await host.runPresentationAction(NAME, "clear");
      assert.equal(cleared.text, "cleared 1 finished job");
    });
  },
);

test(
  "PRES-25, SUP-19: a reload clears the old generation's snapshot; " + "the new generation restarts its revisions",
  async () => {
    await withWorker({ presentation: true }, async (host, events) => {
      await host.callTool("start_job", { name: "a", steps: 1, step_ms: 10 });
      await waitUntil(() => host.presentation(NAME)?.revision === 1, 5_000, "the background snapshot");
      await host.reload(NAME);
      await waitUntil(() => host.presentation(NAME) === null, 5_000, "the old snapshot to be cleared");
      assert.ok(events.some((e) => e.type === "presentation" && e.presentation === null && e.generation === 1));
      await host.callTool("start_job", { name: "b", steps: 1, step_ms: 10 });
      // Generation 2's first snapshot (the call-time one): on a loaded machine the job's 10 ms
      // step may already have replaced it as the current one by the time the call returns.
      const fresh = shown(events).find((p) => p.generation === 2)!;
      assert.equal(fresh.generation, 2);
      assert.equal(fresh.revision, 0, "a new process generation may restart revisions (PRES-07)");
      assert.notEqual(fresh.instance, shown(events)[0]?.instance, "a new fence");
    });
  },
);

test(
  "PRES-01, INIT-29: without the service bound the host offers nothing new, keeps no snapshot and says why it " +
    "ignored one",
  async () => {
    await withWorker(undefined, async (host, events) => {
      const r = await host.callTool("start_job", { name: "x", steps: 1, step_ms: 10 });
      assert.equal(r.is_error, false);
      await waitUntil(() => events.filter((e) => e.type === "diagnostic").length >= 2, 5_000, "two ignored snapshots");
      assert.equal(host.presentation(NAME), null);
      assert.equal(shown(events).length, 0);
      assert.match(
        JSON.stringify(events.filter((e) => e.type === "diagnostic")),
        /ignored unknown notification \\"presentation\/update\\"/,
      );
    });
  },
);
