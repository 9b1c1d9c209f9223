/**
 * Context and status pushed by the extension (context/contribution, status/contribution): gated
 * by the manifest's declarations, rate-limited together like notifications, and at most 32
 * distinct context labels per generation; the host keeps one entry per label (CTX-06, CTX-07).
 */
import {
  CONTEXT_CONTRIBUTION,
  STATUS_CONTRIBUTION,
  bounds,
  validateContextContribution,
  validateStatusContribution,
} from "@octet/protocol";
import type { GenerationService, ServiceGeneration } from "../module.js";
import { RateWindow } from "../../util/rate-window.js";

export const CONTRIBUTION_METHODS = [CONTEXT_CONTRIBUTION, STATUS_CONTRIBUTION];

const PER_SECOND = bounds.MAX_CONTRIBUTIONS_PER_SECOND;

export function openContributions(g: ServiceGeneration): GenerationService {
  const rate = new RateWindow(PER_SECOND, g.now);
  /** Distinct context labels this generation used. */
  const labels = new Set<string>();
  const base = { extension: g.name, generation: g.number };
  // A flood reaches the embedder as one diagnostic per window.
  const admit = (method: string): boolean => {
    const { admitted, droppedBefore } = rate.admit();
    if (droppedBefore > 0)
      g.diagnose("warning", `dropped ${droppedBefore} contributions over ${PER_SECOND} per second`);
    if (!admitted && rate.dropped === 1) {
      g.diagnose("warning", `${method} rate over ${PER_SECOND} per second; dropping the excess for this second`);
    }
    return admitted;
  };
  const c = g.manifest.contributes;
  const drop = (why: string): void => g.diagnose("warning", `dropped ${why}`);
  return {
    features: [],
    notifications: {
      "context/contribution": (params) => {
        if (!c.context) return drop("a context/contribution: the manifest does not declare contributes.context");
        const checked = validateContextContribution(params);
        if (!checked.ok) return drop(`an invalid context/contribution: ${checked.problems.join("; ")}`);
        if (!admit("context/contribution")) return;
        const label = checked.value.label;
        if (!labels.has(label) && labels.size >= bounds.MAX_CONTEXT_ENTRIES) {
          const used = `this generation already uses ${labels.size} labels, the limit is ${bounds.MAX_CONTEXT_ENTRIES}`;
          return drop(`a context/contribution with a new label: ${used}`);
        }
        labels.add(label);
        g.emit({ type: "context", ...base, contribution: checked.value });
      },
      "status/contribution": (params) => {
        const checked = validateStatusContribution(params);
        if (!checked.ok) return drop(`an invalid status/contribution: ${checked.problems.join("; ")}`);
        const surface = checked.value.surface;
        if (!c.ui.includes(surface)) {
          return drop(`a status/contribution: the manifest does not declare "${surface}" in contributes.ui`);
        }
        if (!admit("status/contribution")) return;
        g.emit({ type: "status", ...base, contribution: checked.value });
      },
    },
  };
}
