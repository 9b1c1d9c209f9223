// Model providers that pi extensions register (pi's registerProvider, its data only: baseUrl, api,
// apiKey, headers, authHeader, compat, models), taken as models.json providers so that
// `--model NAME/ID` can name one. The user's models.json wins a name both define: it is the
// user's own configuration, and an extension must not silently reroute a provider the user set up.
import { parseModelsFile, type ModelsFile, type ProviderConfig } from "./models-file.js";

export class ExtensionProviders {
  readonly #providers = new Map<string, { extension: string; config: ProviderConfig }>();

  /** Checks `config` as a models.json provider and keeps it; answers null, or why it was refused. */
  add(extension: string, name: string, config: Record<string, unknown>): string | null {
    const held = this.#providers.get(name);
    if (held !== undefined && held.extension !== extension)
      return `provider "${name}" is already registered by the pi extension "${held.extension}"`;
    try {
      const parsed = parseModelsFile({ providers: { [name]: config } }, `pi extension "${extension}"`);
      this.#providers.set(name, { extension, config: parsed.providers.get(name)! });
      return null;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  get size(): number {
    return this.#providers.size;
  }

  /** models.json with these providers added where it does not define the name itself. */
  merge(file: ModelsFile | null): ModelsFile | null {
    if (this.#providers.size === 0) return file;
    const providers = new Map(file?.providers ?? []);
    for (const [name, p] of this.#providers) if (!providers.has(name)) providers.set(name, p.config);
    return { path: file?.path ?? "models.json", providers };
  }
}
