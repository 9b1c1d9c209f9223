// API keys and header values: pi's value resolution for models.json ("!command", an environment
// variable's name, or a literal) and the environment variables of pi-ai's built-in providers.
import { spawn } from "node:child_process";
import { getEnvApiKey } from "@mariozechner/pi-ai";

export type Env = Record<string, string | undefined>;

// The variables pi-ai's getEnvApiKey reads, in its order. A copy, because pi-ai reads process.env
// only and exports no list, while octet resolves against an explicit environment and must name
// the variable to set. A test checks each entry against pi-ai's findEnvKeys, so drift shows up.
const KEY_VARS: Record<string, string[]> = {
  anthropic: ["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"],
  "github-copilot": ["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"],
  openai: ["OPENAI_API_KEY"],
  "azure-openai-responses": ["AZURE_OPENAI_API_KEY"],
  deepseek: ["DEEPSEEK_API_KEY"],
  google: ["GEMINI_API_KEY"],
  "google-vertex": ["GOOGLE_CLOUD_API_KEY"],
  groq: ["GROQ_API_KEY"],
  cerebras: ["CEREBRAS_API_KEY"],
  xai: ["XAI_API_KEY"],
  openrouter: ["OPENROUTER_API_KEY"],
  "vercel-ai-gateway": ["AI_GATEWAY_API_KEY"],
  zai: ["ZAI_API_KEY"],
  mistral: ["MISTRAL_API_KEY"],
  minimax: ["MINIMAX_API_KEY"],
  "minimax-cn": ["MINIMAX_CN_API_KEY"],
  moonshotai: ["MOONSHOT_API_KEY"],
  "moonshotai-cn": ["MOONSHOT_API_KEY"],
  huggingface: ["HF_TOKEN"],
  fireworks: ["FIREWORKS_API_KEY"],
  opencode: ["OPENCODE_API_KEY"],
  "opencode-go": ["OPENCODE_API_KEY"],
  "kimi-coding": ["KIMI_API_KEY"],
  "cloudflare-workers-ai": ["CLOUDFLARE_API_KEY"],
  "cloudflare-ai-gateway": ["CLOUDFLARE_API_KEY"],
  xiaomi: ["XIAOMI_API_KEY"],
  "xiaomi-token-plan-cn": ["XIAOMI_TOKEN_PLAN_CN_API_KEY"],
  "xiaomi-token-plan-ams": ["XIAOMI_TOKEN_PLAN_AMS_API_KEY"],
  "xiaomi-token-plan-sgp": ["XIAOMI_TOKEN_PLAN_SGP_API_KEY"],
};

/** The environment variables that hold a built-in provider's key, in pi-ai's order of precedence. */
export function keyVarsOf(provider: string): string[] {
  return KEY_VARS[provider] ?? [];
}

/** The variable a user should set, for messages: an *_API_KEY one before tokens (ANTHROPIC_API_KEY). */
export function keyVarHint(provider: string): string | undefined {
  const vars = keyVarsOf(provider);
  return vars.find((v) => v.endsWith("_API_KEY")) ?? vars[0];
}

/** A built-in provider's key from `env`; ambient credentials (AWS, Google ADC) through pi-ai itself. */
export function builtInKey(provider: string, env: Env): string | undefined {
  const vars = keyVarsOf(provider);
  for (const v of vars) {
    const value = env[v];
    if (value !== undefined && value !== "") return value;
  }
  // Providers without a key variable (amazon-bedrock; google-vertex through ADC) authenticate
  // from the process's own credentials, which only pi-ai knows how to detect.
  return vars.length === 0 || provider === "google-vertex" ? getEnvApiKey(provider) : undefined;
}

/** A command's output is a key: a slow secret store is given this long, then the command fails. */
export const KEY_COMMAND_TIMEOUT_MS = 10_000;
// A key or header is small; more output than this is a command printing something else.
const KEY_COMMAND_MAX_BYTES = 64 * 1024;

/**
 * pi's value resolution: "!command" runs through /bin/sh and yields its trimmed stdout; a value
 * naming a set environment variable yields that variable; anything else is the value itself.
 * `what` names the field in errors (e.g. providers.ollama.apiKey in /home/me/.octet/models.json).
 */
export async function resolveConfigValue(
  value: string,
  env: Env,
  what: string,
  timeoutMs = KEY_COMMAND_TIMEOUT_MS,
): Promise<string> {
  if (value.startsWith("!")) return runValueCommand(value.slice(1), env, what, timeoutMs);
  const fromEnv = env[value];
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  return value;
}

// Runs in its own process group, killed whole on timeout: a command that leaves a child behind
// (a credential helper's agent) would otherwise hold the output pipe open past the timeout.
function runValueCommand(command: string, env: Env, what: string, timeoutMs: number): Promise<string> {
  const cleanEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) cleanEnv[k] = v;
  const shown = `${what}: command "!${command}"`;
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", command], {
      env: cleanEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let why: string | undefined;
    const killGroup = (reason: string) => {
      why ??= reason;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => killGroup(`did not finish within ${timeoutMs / 1000} s`), timeoutMs);
    const collect = (into: Buffer[]) => (b: Buffer) => {
      size += b.length;
      if (size > KEY_COMMAND_MAX_BYTES) killGroup(`printed over ${KEY_COMMAND_MAX_BYTES} bytes`);
      else into.push(b);
    };
    child.stdout.on("data", collect(out));
    child.stderr.on("data", collect(err));
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(new Error(`${shown} could not run (${e.message})`));
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      const detail = firstLine(Buffer.concat(err).toString("utf8"));
      const tail = detail ? `: ${detail}` : "";
      if (why !== undefined) reject(new Error(`${shown} ${why}${tail}`));
      else if (signal !== null) reject(new Error(`${shown} was killed by ${signal}${tail}`));
      else if (code !== 0) reject(new Error(`${shown} exited with code ${code}${tail}`));
      else {
        const value = Buffer.concat(out).toString("utf8").trim();
        if (value === "") reject(new Error(`${shown} printed nothing (expected the value on stdout)`));
        else resolve(value);
      }
    });
  });
}

function firstLine(s: string): string {
  const line = s.trim().split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
