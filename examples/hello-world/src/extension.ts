/**
 * hello-world: the extension of the octet wire reference's initialize example. One tool, one
 * slash command, two hooks, a status line, prompt context and a tool renderer.
 */
import { Extension } from "@octet/extension";

const ext = new Extension({ apiVersion: "0.1" });
let greetings = 0;

ext.tool(
  {
    name: "hello_world",
    description: "Greet someone from an executable extension",
    parameters: {
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
      additionalProperties: false,
    },
  },
  (args) => {
    const name = typeof args["name"] === "string" && args["name"].trim() !== "" ? args["name"].trim() : "world";
    greetings++;
    return `Hello, ${name}! Greetings from the hello-world extension.`;
  },
);

ext.command({ name: "hello", description: "Show a greeting notification", usage: "/hello [name]" }, (args, ctx) => {
  const name = args.join(" ").trim() || "tinkerer";
  ctx.notify({ level: "success", title: "Hello", message: `hello greeted ${name}` });
  return { text: `Hello, ${name}!`, notifications: [{ level: "info", title: "Greeting sent", message: `to ${name}` }] };
});

ext.hook("before_prompt", (payload) => {
  const prompt = typeof payload["prompt"] === "string" ? payload["prompt"] : "";
  // A demonstration veto: the host blocks a prompt that asks for it explicitly.
  if (prompt.includes("#deny-hello")) return { deny: "the prompt asked hello-world to deny it" };
  return {
    context: [{ label: "hello-world", content: "The user may want a friendly greeting.", placement: "system_suffix" }],
  };
});

ext.hook("after_response", () => undefined);

ext.context(() => [
  { label: "hello-world", content: "The hello-world extension is active.", placement: "system_suffix" },
]);

ext.status((surface) => ({
  text: `hello · ${greetings} greeted`,
  styleRole: `extension.hello_world.${surface}`,
  priority: 0,
}));

ext.renderer("hello_world", (input) => [
  {
    text: input.isError ? "hello · failed" : "hello · ok",
    style_role: input.isError ? "extension.hello_world.error" : "extension.hello_world.ok",
  },
  { text: "\n", style_role: null },
  { text: input.output, style_role: "extension.hello_world.detail" },
]);

void ext.run();
