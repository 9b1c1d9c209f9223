/** The rpi timeouts (RPI-31, RPI-32): the source document's defaults and how overrides are checked. */
export interface RpiTimeouts {
  handshakeMs: number;
  loadMs: number;
  initializeMs: number;
  invocationMs: number;
  hookMs: number;
  shutdownMs: number;
}

/** The defaults of the source document (RPI-31); every one can be overridden (RPI-32). */
export const DEFAULT_RPI_TIMEOUTS: Readonly<RpiTimeouts> = {
  handshakeMs: 5000,
  loadMs: 10_000,
  initializeMs: 15_000,
  invocationMs: 60_000,
  hookMs: 10_000,
  shutdownMs: 2000,
};

/** The longest timeout an override may set: a day (a longer one is almost surely a unit mistake). */
export const MAX_RPI_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** The defaults with `overrides` applied; each must be an integer of 1..MAX_RPI_TIMEOUT_MS ms. */
export function resolveTimeouts(overrides: Partial<RpiTimeouts> = {}): RpiTimeouts {
  const out = { ...DEFAULT_RPI_TIMEOUTS };
  for (const [key, value] of Object.entries(overrides) as [keyof RpiTimeouts, unknown][]) {
    if (!(key in DEFAULT_RPI_TIMEOUTS))
      throw new RangeError(`unknown rpi timeout "${key}" (known: ${Object.keys(DEFAULT_RPI_TIMEOUTS).join(", ")})`);
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_RPI_TIMEOUT_MS) {
      throw new RangeError(
        `rpi timeout ${key} must be an integer number of milliseconds from 1 to ${MAX_RPI_TIMEOUT_MS}; got ` +
          `${String(value)}`,
      );
    }
    out[key] = value;
  }
  return out;
}
