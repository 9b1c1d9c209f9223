import { test } from "node:test";
import assert from "node:assert/strict";
import { bounds } from "@octet/protocol";
import { buildInitializeRequest, offeredOptionalFeatures } from "../src/generation/initialize-request.js";
import { parseManifest } from "../src/manifest/manifest.js";

function manifest(api: string) {
  const r = parseManifest(
    `name = "x"\nversion = "1"\napi_version = "${api}"\n[entrypoint]\ncommand = "x"\n[contributes]\ntools = ["t"]\n`,
    "/x/extension.toml",
  );
  assert.ok(r.ok);
  return r.manifest;
}
const where = {
  manifestPath: "/x/extension.toml",
  source: "explicit" as const,
  workspace: "/w",
  host: { session_id: null, session_name: null, model: null, reasoning: null, active_skills: [] },
};

test("INIT-15, INIT-29, INIT-30: only features with a bound service are offered; prompt metadata only on 0.4", () => {
  assert.deepEqual(offeredOptionalFeatures("0.2"), [
    "request_progress",
    "progress_decoration",
    "lifecycle_events",
    "runtime_commands",
  ]);
  assert.deepEqual(offeredOptionalFeatures("0.4"), [
    "request_progress",
    "progress_decoration",
    "lifecycle_events",
    "runtime_commands",
    "tool_prompt_metadata_v1",
  ]);
  for (const unbound of ["artifacts", "policy_intents", "dynamic_tools", "approvals", "secrets", "agent_sessions"]) {
    assert.ok(!offeredOptionalFeatures("0.4").includes(unbound), `${unbound} is not offered without its service`);
  }
});

test(
  "INIT-13, INIT-14, INIT-16, INIT-23: the 0.2/0.4 request adds protocol with the required features and " +
    "the host cap",
  () => {
    const { params } = buildInitializeRequest(manifest("0.4"), where);
    assert.deepEqual(params.protocol, {
      version: "0.4",
      required_features: ["request_cancellation", "content_parts"],
      optional_features: offeredOptionalFeatures("0.4"),
      limits: { max_concurrent_requests: bounds.MAX_CONCURRENT_REQUESTS },
    });
    assert.equal(
      buildInitializeRequest(manifest("0.1"), where).params.protocol,
      undefined,
      "API 0.1 has no protocol member (INIT-11)",
    );
  },
);
