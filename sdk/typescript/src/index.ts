export { Extension } from "./extension.js";
export { WireError, ErrorCode } from "@octet/protocol";
export type {
  ExtensionOptions, ToolSpec, ToolResultObject, ToolReturn, CommandSpec, CommandResultObject, CommandReturn,
  NotificationInput, ContextInput, HookReturnObject, HookReturn, StatusReturn, RenderReturn, ConfirmOptions,
  HandlerContext, ToolHandler, CommandHandler, HookHandler, ContextHandler, StatusHandler, RenderInput, RenderHandler,
} from "./types.js";
