/**
 * composer-keys: the frontend services of API 0.4 from the TypeScript SDK. /draft puts text in
 * the prompt line, Ctrl-G says hello through a notification, and Tab completes ":name" words.
 */
import { Extension } from "@octet/extension";

const ext = new Extension({ apiVersion: "0.4" });
const WORDS = ["tada", "taco", "rocket", "sparkles"];

ext.command({ name: "draft", description: "Put text in the prompt line", usage: "/draft TEXT" }, async (args, ctx) => {
  const text = args.join(" ") || "a draft from composer-keys";
  await ctx.composer.set(text);
  return { text: `drafted ${JSON.stringify(text)}` };
});

ext.shortcut(
  "ctrl+g",
  () => ext.notify({ level: "info", title: "composer-keys", message: "Ctrl-G pressed" }),
  "Say hello from composer-keys",
);

ext.autocomplete(({ text, cursor }) => {
  // The cursor is a UTF-8 byte offset; the words completed here are ASCII.
  const before = Buffer.from(text, "utf8").subarray(0, cursor).toString("utf8");
  const word = /:([a-z]*)$/.exec(before);
  if (word === null) return null;
  const items = WORDS.filter((w) => w.startsWith(word[1] ?? "")).map((w) => ({
    value: `:${w}:`,
    label: `:${w}:`,
    description: null,
  }));
  return { prefix: word[0], items };
});

void ext.run();
