/** Extension menus (MENU-01..13): pulled on API 0.2+; no feature (an extension without one answers -32601). */
import { validateMenu } from "../api/validate-menu.js";
import { NEGOTIATED_VERSIONS, type MethodSpec } from "./spec.js";

/**
 * Params `{context}`: no validator today (the SDKs check that context is an object).
 * Result: validateMenu(value, declaredCommands).
 */
export const MENU_COLLECT = {
  method: "menu/collect",
  direction: "host->child",
  kind: "request",
  apiVersions: NEGOTIATED_VERSIONS,
  validateResult: validateMenu,
} as const satisfies MethodSpec;

export const MENU_METHODS: readonly MethodSpec[] = [MENU_COLLECT];
