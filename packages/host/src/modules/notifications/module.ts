/**
 * The `notification` child notification (NOTIF-01..03): a message for the person, gated by the
 * manifest's contributes.notifications and bounded in rate per generation; a flood reaches the
 * embedder as one diagnostic per window.
 */
import { NOTIFICATION, bounds, validateNotification } from "@octet/protocol";
import { defineModule, type ServiceGeneration } from "../module.js";
import { RateWindow } from "../../util/rate-window.js";

const METHOD = NOTIFICATION.method;

export const notificationsModule = defineModule<true>({
  feature: "notifications",
  offer: () => [],
  open: (g) => {
    const rate = new RateWindow(bounds.MAX_NOTIFICATIONS_PER_SECOND, g.now);
    return { features: [], notifications: { [METHOD]: (params) => notify(g, rate, params) } };
  },
  childRequests: [],
  childNotifications: [NOTIFICATION],
});

function notify(g: ServiceGeneration, rate: RateWindow, params: unknown): void {
  if (!g.manifest.contributes.notifications) {
    return g.diagnose("warning", "dropped a notification: the manifest does not declare contributes.notifications");
  }
  const checked = validateNotification(params);
  if (!checked.ok) return g.diagnose("warning", `dropped an invalid notification: ${checked.problems.join("; ")}`);
  const { admitted, droppedBefore } = rate.admit();
  if (droppedBefore > 0) {
    g.diagnose(
      "warning",
      `dropped ${droppedBefore} notifications over ${bounds.MAX_NOTIFICATIONS_PER_SECOND} per second`,
    );
  }
  if (admitted) g.emit({ type: "notification", extension: g.name, generation: g.number, notification: checked.value });
}
