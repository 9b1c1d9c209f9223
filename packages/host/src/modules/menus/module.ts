/**
 * Menus (MENU-01..13): menu/collect and running a menu action (menus.ts). No protocol feature:
 * gated by the manifest's contributes.menu on API 0.2+ and the commands the extension declared.
 */
import { COMMAND_EXECUTE, MENU_COLLECT } from "@octet/protocol";
import { defineModule } from "../module.js";

export const menusModule = defineModule<true>({
  feature: "menus",
  offer: () => [],
  open: () => null,
  childRequests: [],
  childNotifications: [],
  hostRequests: [MENU_COLLECT, COMMAND_EXECUTE],
});
