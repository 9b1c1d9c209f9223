import { test } from "node:test";
import assert from "node:assert/strict";
import { OctetError } from "@octet/protocol";
import type { ConfirmService } from "../../src/generation/child-inbox.js";
import { confirmDestructive } from "../../src/host/actions.js";

type Question = Parameters<ConfirmService>[0];

function recording(answer: boolean): { confirm: ConfirmService; asked: Question[] } {
  const asked: Question[] = [];
  return {
    asked,
    confirm: async (q) => {
      asked.push(q);
      return answer;
    },
  };
}

function notConfirmed(message: string): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof OctetError);
    assert.equal(err.code, "request_cancelled");
    assert.equal(err.message, message);
    return true;
  };
}

test("issue 14.3: without a confirm service a destructive menu or presentation action is refused", async () => {
  await assert.rejects(
    confirmDestructive(undefined, { kind: "menu", extension: "jev", label: "Forget all" }),
    notConfirmed('menu action "Forget all" of "jev" was not confirmed'),
  );
  await assert.rejects(
    confirmDestructive(undefined, { kind: "presentation", extension: "jev", label: "Drop" }),
    notConfirmed('presentation action "Drop" of "jev" was not confirmed'),
  );
});

test("issue 14.3: the embedder is asked once, destructive, defaulting to no; its answer decides", async () => {
  const yes = recording(true);
  await confirmDestructive(yes.confirm, { kind: "menu", extension: "jev", label: "Forget all" });
  assert.equal(yes.asked.length, 1);
  const { signal, ...question } = yes.asked[0]!;
  assert.deepEqual(question, {
    extension: "jev",
    prompt: 'Run "Forget all"?',
    detail: "This action is marked destructive.",
    destructive: true,
    default: false,
  });
  assert.equal(signal.aborted, false);

  const no = recording(false);
  await assert.rejects(
    confirmDestructive(no.confirm, { kind: "presentation", extension: "jev", label: "Drop" }),
    notConfirmed('presentation action "Drop" of "jev" was not confirmed'),
  );
  assert.equal(no.asked.length, 1);
});

test("issue 14.3: the question ends with the action's own signal", async () => {
  const controller = new AbortController();
  const seen: AbortSignal[] = [];
  const confirm: ConfirmService = (q) => {
    seen.push(q.signal);
    return new Promise<boolean>((resolve) => q.signal.addEventListener("abort", () => resolve(false), { once: true }));
  };
  const pending = confirmDestructive(confirm, { kind: "menu", extension: "jev", label: "Wipe" }, controller.signal);
  controller.abort();
  await assert.rejects(pending, notConfirmed('menu action "Wipe" of "jev" was not confirmed'));
  assert.equal(seen[0], controller.signal);
});
