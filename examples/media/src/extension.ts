/**
 * media: tools that return generated media. gradient_png publishes its PNG inline (small bytes
 * travel in the request); tone_wav writes its WAV into the scratch directory the host gave this
 * process and publishes it by path. Either way the host verifies the bytes and the result names
 * the artifact in an image or audio part next to the text part every result needs.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Extension } from "@octet/extension";
import { encodePng, encodeWav } from "./encode.js";

const ext = new Extension({ apiVersion: "0.2", maxConcurrentRequests: 4 });

ext.tool(
  {
    name: "gradient_png",
    description: "Draw a color gradient and return it as a PNG image",
    parameters: {
      type: "object",
      properties: {
        width: { type: "integer", minimum: 1, maximum: 512, description: "Pixels (default 64)" },
        height: { type: "integer", minimum: 1, maximum: 512, description: "Pixels (default 32)" },
      },
      additionalProperties: false,
    },
  },
  async (args, ctx) => {
    const width = typeof args["width"] === "number" ? args["width"] : 64;
    const height = typeof args["height"] === "number" ? args["height"] : 32;
    const png = encodePng(width, height, (x, y) => [
      Math.round((255 * x) / Math.max(1, width - 1)),
      Math.round((255 * y) / Math.max(1, height - 1)),
      160,
    ]);
    const image = await ctx.publishArtifact(png, "image/png", { alt: `A ${width}x${height} color gradient` });
    return { content: [{ type: "text", text: `A ${width}x${height} gradient (${png.length} bytes).` }, image.part] };
  },
);

ext.tool(
  {
    name: "tone_wav",
    description: "Synthesize a sine tone and return it as a WAV recording",
    parameters: {
      type: "object",
      properties: {
        ms: { type: "integer", minimum: 1, maximum: 60000, description: "Duration in milliseconds (default 500)" },
        hz: { type: "number", minimum: 20, maximum: 20000, description: "Frequency (default 440)" },
      },
      additionalProperties: false,
    },
  },
  async (args, ctx) => {
    const ms = typeof args["ms"] === "number" ? args["ms"] : 500;
    const hz = typeof args["hz"] === "number" ? args["hz"] : 440;
    const rate = 16000;
    const samples = new Float32Array(Math.round((rate * ms) / 1000));
    for (let i = 0; i < samples.length; i++) samples[i] = 0.5 * Math.sin((2 * Math.PI * hz * i) / rate);
    const wav = encodeWav(samples, rate);
    // Published by path: the host reads the file from the scratch directory without following links.
    const name = `tone-${ctx.requestId}.wav`;
    await writeFile(join(process.env["OCTET_EXTENSION_SCRATCH"] ?? ".", name), wav);
    const audio = await ctx.publishArtifact({ path: name }, "audio/wav", { transcript: `(a ${hz} Hz tone)` });
    return { content: [{ type: "text", text: `A ${ms} ms ${hz} Hz tone (${wav.length} bytes).` }, audio.part] };
  },
);

ext.run();
