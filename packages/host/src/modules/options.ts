/**
 * What the embedder binds (ExtensionHostOptions.services): one member per module that needs an
 * embedder service. Each module folder adds its own member by declaration merging
 * (`declare module "../options.js"`), so a new module does not edit a shared list; a member left
 * out means the module is not bound, its feature is not offered and its methods are refused.
 */
// The modules fill it by declaration merging (a type alias cannot be merged).
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface HostServiceOptions {}

/** Which names are taken by others: the host's own tools and every other extension's published ones. */
export type NameOwners = (extension: string) => ReadonlyMap<string, string>;
