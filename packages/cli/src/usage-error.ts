/**
 * A command line that cannot be run as written (exit 2). Its own module so that every parser
 * (args.ts, policy-secrets.ts, the shell's) can throw it without importing each other.
 */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
