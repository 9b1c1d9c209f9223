/**
 * The host services of API 0.2 an embedder can bind (ExtensionHostOptions.services), turned into
 * per-generation service factories (child-service.ts). A service left out is not offered: its
 * feature is absent from initialize, and its methods are answered as unsupported.
 *
 * Each service module adds its option here and its factory in bindServices().
 */
import type { ServiceFactory } from "./child-service.js";

/** What the embedder binds. Each member documents its own contract in its module. */
export interface HostServiceOptions {}

/** The factories of the services bound in `options`, in a fixed order. */
export function bindServices(options: HostServiceOptions): ServiceFactory[] {
  const factories: ServiceFactory[] = [];
  void options;
  return factories;
}
