import { test } from "node:test";
import assert from "node:assert/strict";
import { decideOperation, parsePolicyRules, policyFormatOf } from "../../../src/modules/policy/policy-rules.js";

test("POL-05: a rules file: exact names, then the longest prefix.*, then *, then default (deny when absent)", () => {
  const rules = parsePolicyRules(
    JSON.stringify({
      operations: { "git.push": "ask", "git.*": "allow", "git.remote.*": "deny", "browser.submit_form": "allow" },
    }),
    "json",
  );
  assert.equal(decideOperation(rules, "git.push"), "ask");
  assert.equal(decideOperation(rules, "git.status"), "allow");
  assert.equal(decideOperation(rules, "git.remote.add"), "deny");
  assert.equal(decideOperation(rules, "browser.submit_form"), "allow");
  assert.equal(decideOperation(rules, "browser.other"), "deny", "unlisted operations fail closed");
  const wide = parsePolicyRules('default = "ask"\n[operations]\n"*" = "allow"\n"fs.delete" = "deny"\n', "toml");
  assert.equal(decideOperation(wide, "anything.at_all"), "allow");
  assert.equal(decideOperation(wide, "fs.delete"), "deny");
  assert.equal(decideOperation(parsePolicyRules('default = "ask"', "toml"), "x"), "ask");
});

test("a malformed rules file names the member and what is allowed", () => {
  assert.throws(() => parsePolicyRules("{", "json"), /not valid JSON/);
  assert.throws(() => parsePolicyRules("a = ", "toml"), /not valid TOML/);
  assert.throws(
    () => parsePolicyRules('{"operations":{"git.push":"maybe"}}', "json"),
    /operations\.git\.push is "maybe"; expected "allow", "ask" or "deny"/,
  );
  assert.throws(() => parsePolicyRules('{"operations":{"git push":"allow"}}', "json"), /operation pattern "git push"/);
  assert.throws(() => parsePolicyRules('{"rules":{}}', "json"), /unknown key "rules"/);
  assert.throws(() => parsePolicyRules('{"default":"yes"}', "json"), /default is "yes"/);
  assert.throws(() => parsePolicyRules("[]", "json"), /must be an object/);
  assert.equal(policyFormatOf("/a/p.TOML"), "toml");
  assert.equal(policyFormatOf("p.json"), "json");
  assert.equal(policyFormatOf("p.yaml"), null);
});
