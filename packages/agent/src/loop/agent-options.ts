/**
 * What an Agent is opened with (agent.ts): the session, the model, the extensions and the
 * settings of its loop. Apart from the class so agent.ts stays one concern.
 */
import type { ModelThinkingLevel } from "@mariozechner/pi-ai";
import type { ExtensionHost } from "@octet/host";
import type { SessionFile } from "../session/index.js";
import type { ModelCatalog, ResolvedModel } from "../models/index.js";
import type { BuiltinTool, ToolApproval } from "../tools/index.js";
import type { CompactionSettings } from "./compaction.js";
import type { CacheWarmingSettings } from "./cache-warming.js";

export interface AgentOptions {
  session: SessionFile;
  model: ResolvedModel;
  /** The extensions; null or absent: the agent runs with its built-in tools only. */
  host?: ExtensionHost | null;
  /** The gate of write, edit and bash. Default: never asks, so every change is refused. */
  approval?: ToolApproval;
  /** Default: read, write, edit and bash. */
  tools?: readonly BuiltinTool[];
  /** An extension tool of a built-in's name replaces the built-in, with a warning (pi's rule). */
  replaceBuiltins?: boolean;
  /** Replaces the default system prompt (extension context is still placed around it). */
  systemPrompt?: string;
  /** Model requests per run before it stops with limit_reached. Default 50. */
  maxTurns?: number;
  /** Provider retries on 429/5xx (the provider SDK's own). Default: the SDK's (2). */
  maxRetries?: number;
  compaction?: Partial<CompactionSettings>;
  /** Keeping the provider's prompt cache warm while idle (off by default; it costs money). */
  cacheWarming?: Partial<CacheWarmingSettings>;
  /**
   * Why this session starts, as pi's session_start says it: "startup" (default) when the program
   * opens it, "resume" or "new" when a switch replaces another (then with that one's file).
   */
  start?: { reason: "startup" | "resume" | "new" | "fork"; previousSessionFile?: string };
  /** The models pi extensions see (ctx.modelRegistry) and may switch to (pi.setModel). Absent: none. */
  models?: ModelCatalog;
  /** The thinking level asked of the model (pi-ai's `reasoning`), clamped to it. Default "off". */
  thinkingLevel?: ModelThinkingLevel;
}
