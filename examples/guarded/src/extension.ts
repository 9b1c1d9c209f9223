/**
 * guarded: a tool with an external side effect done the API 0.2 way. Before "publishing" it
 * declares its intent to the host's policy (policy/evaluate) and goes on only on "allow"; an
 * "ask" that a person approved comes back with a single-use token, which ext.policy.authorize()
 * spends on the one retry. The credential comes from the host's broker (secret/get), scoped to
 * this call, and only a fingerprint of it is ever shown.
 *
 * Nothing is really published: the point is the order of the checks, not the network call.
 */
import { createHash } from "node:crypto";
import { Extension } from "@octet/extension";

const ext = new Extension({ apiVersion: "0.2", maxConcurrentRequests: 4 });

ext.tool(
  {
    name: "publish",
    description: "Publish a short text to the example service, if the host's policy allows it",
    parameters: {
      type: "object",
      properties: {
        text: { type: "string", maxLength: 280, description: "What to publish" },
        preview: { type: "boolean", description: "Only preview (a read-only operation)" },
      },
      required: ["text"],
      additionalProperties: false,
    },
  },
  async (args) => {
    const text = String(args["text"]);
    const preview = args["preview"] === true;
    if (!ext.policy.available)
      return {
        content: "not published: this host offers no policy service, so nothing with side effects is attempted",
        isError: true,
      };
    const allowed = await ext.policy.authorize({
      operation: preview ? "guarded.preview" : "guarded.publish",
      target: {
        origin: "https://example.invalid",
        label: preview ? "Preview a post" : `Publish "${text.slice(0, 40)}"`,
      },
      dataClasses: ["user_text"],
      hints: { readOnly: preview, destructive: false },
    });
    if (!allowed)
      return {
        content: `not published: the host's policy did not allow ${preview ? "guarded.preview" : "guarded.publish"}`,
        isError: true,
      };
    let token: string;
    try {
      token = await ext.secrets.get("guarded.api_token");
    } catch (err) {
      return {
        content: `not published: the API token is unavailable (${err instanceof Error ? err.message : String(err)})`,
        isError: true,
      };
    }
    // Only a fingerprint: the token itself never goes into a result, a log or stderr.
    const fingerprint = createHash("sha256").update(token).digest("hex").slice(0, 12);
    return `${preview ? "previewed" : "published"} ${JSON.stringify(text)} with token sha256:${fingerprint}`;
  },
);

void ext.run();
