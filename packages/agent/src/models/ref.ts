/** A model named by the user: `--model provider/id`, or `model` in the config. */
export interface ModelChoice {
  provider: string;
  id: string;
}

const FORM = 'expected "provider/id", e.g. "anthropic/claude-sonnet-4-5" or "ollama/llama3.1:8b"';

/**
 * Splits "provider/id" at the first "/": ids may contain "/" themselves
 * (openrouter/anthropic/claude-3.5-sonnet is provider "openrouter", id "anthropic/claude-3.5-sonnet").
 */
export function parseModelRef(text: string): ModelChoice {
  const ref = text.trim();
  const slash = ref.indexOf("/");
  if (slash < 0) throw new Error(`model ${JSON.stringify(text)} has no provider: ${FORM}`);
  const provider = ref.slice(0, slash);
  const id = ref.slice(slash + 1);
  if (provider === "") throw new Error(`model ${JSON.stringify(text)} has an empty provider: ${FORM}`);
  if (id === "") throw new Error(`model ${JSON.stringify(text)} has an empty model id: ${FORM}`);
  if (/\s/.test(ref)) throw new Error(`model ${JSON.stringify(text)} contains whitespace: ${FORM}`);
  return { provider, id };
}

/** The inverse of parseModelRef. */
export function formatModelRef(choice: ModelChoice): string {
  return `${choice.provider}/${choice.id}`;
}
