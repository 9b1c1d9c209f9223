// One clear line for a failed model request. pi-ai ends a failed stream with stopReason "error"
// and the provider SDK's message ("401 Incorrect API key", "Connection error.", "terminated"), which
// says what happened but not what to do; this names the kind and the next step.
import type { AssistantMessage } from "@mariozechner/pi-ai";
import { keyVarHint } from "./keys.js";
import type { ResolvedModel } from "./resolve.js";

export type ProviderErrorKind = "auth" | "rate-limit" | "network" | "server" | "request" | "aborted" | "other";

// The provider's own text is kept, but bounded: an HTML error page must not flood the terminal.
const DETAIL_MAX = 300;

// Connection-level failures before any response: the SDKs' wording and Node's error codes.
const UNREACHABLE = new RegExp(
  [
    "connection error",
    "ECONNREFUSED",
    "ENOTFOUND",
    "EAI_AGAIN",
    "EHOSTUNREACH",
    "ENETUNREACH",
    "fetch failed",
    "getaddrinfo",
    "timed out",
    "ETIMEDOUT",
  ].join("|"),
  "i",
);
// The connection went away while the response was streaming.
const DROPPED = /\bterminated\b|ECONNRESET|socket hang up|other side closed|premature close|network_error|EPIPE/i;

/** The HTTP status in a provider error message, when it carries one ("429 ...", "status 503", "code": 401). */
export function statusOf(message: string): number | undefined {
  const m =
    /^\s*(\d{3})\b/.exec(message) ??
    /\bstatus(?: code)?[:= ]\s*(\d{3})\b/i.exec(message) ??
    /"(?:code|status)"\s*:\s*(\d{3})\b/.exec(message);
  const n = m ? Number(m[1]) : undefined;
  return n !== undefined && n >= 400 && n <= 599 ? n : undefined;
}

export function providerErrorKind(message: AssistantMessage): ProviderErrorKind {
  if (message.stopReason === "aborted") return "aborted";
  const text = message.errorMessage ?? "";
  const status = statusOf(text);
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rate-limit";
  if (status !== undefined && status >= 500) return "server";
  if (status !== undefined) return "request";
  if (UNREACHABLE.test(text) || DROPPED.test(text)) return "network";
  return "other";
}

/**
 * "authentication failed: anthropic/claude-sonnet-4-5 answered 401 invalid x-api-key; check ANTHROPIC_API_KEY".
 * `resolved` adds the endpoint and the key's origin; without it the line names the provider only.
 */
export function describeProviderError(message: AssistantMessage, resolved?: ResolvedModel): string {
  const who = `${message.provider}/${message.model}`;
  const raw = (message.errorMessage ?? "").replace(/\s+/g, " ").trim();
  const detail = raw.length > DETAIL_MAX ? `${raw.slice(0, DETAIL_MAX)}…` : raw || "no error message";
  const endpoint = resolved?.model.baseUrl || `the ${message.provider} endpoint`;
  switch (providerErrorKind(message)) {
    case "aborted":
      return `request to ${who} was cancelled`;
    case "auth": {
      const check = resolved?.keyHint ?? keyVarHint(message.provider) ?? "the provider's API key";
      return `authentication failed: ${who} answered ${detail}; check ${check}`;
    }
    case "rate-limit":
      return `rate limited: ${who} answered ${detail}; wait and try again, or check the plan's limits`;
    case "server":
      return `server error: ${who} answered ${detail}; the provider failed, try again later`;
    case "request":
      return `request refused: ${who} answered ${detail}`;
    case "network":
      if (DROPPED.test(raw) && !UNREACHABLE.test(raw)) {
        return `connection lost: ${endpoint} closed the response mid-stream (${detail}); try again`;
      }
      return `network error: could not reach ${endpoint} (${detail}); is it running and reachable?`;
    default:
      return `model request failed: ${who}: ${detail}`;
  }
}
