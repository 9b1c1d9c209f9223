import { stream } from "@mariozechner/pi-ai";
import { startScriptedServer } from "/work/wt-models/examples/scripted-model/server.mjs";
const srv = await startScriptedServer({ script: [
  { text: "Hello there, this is a scripted answer." , usage: {prompt_tokens: 11, completion_tokens: 7}},
]});
const model = { id: "scripted-model", name: "s", api: "openai-completions", provider: "scripted", baseUrl: srv.url, reasoning: false, input: ["text"], cost: {input:0,output:0,cacheRead:0,cacheWrite:0}, contextWindow: 128000, maxTokens: 4096 };
const ctx = { systemPrompt: "sys", messages: [{ role: "user", content: "hi", timestamp: Date.now() }] };
const s = stream(model, ctx, { apiKey: "k" });
for await (const e of s) console.log(e.type, e.delta ?? "");
const r = await s.result();
console.log(r.stopReason, r.errorMessage, srv.requests.length, srv.pending());
await srv.close();
