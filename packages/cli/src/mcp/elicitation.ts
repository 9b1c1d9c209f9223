/**
 * An extension's confirmations and input requests, asked of the person behind the MCP client by
 * MCP elicitation (a form of one field) when the client declared the capability; refused
 * otherwise: a confirmation denied, an input cancelled (null), as octet does without a terminal.
 * A secret input is always refused: MCP forbids asking for sensitive values by form elicitation.
 */
import type { ConfirmService, InputService } from "@octet/host";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";

export interface ElicitingServices {
  confirm: ConfirmService;
  input: InputService;
}

export interface ElicitationOptions {
  /** --yes: every confirmation accepted without asking (noted on stderr). */
  yes: boolean;
  /** --no-input: nothing is asked. */
  noInput: boolean;
  note: (message: string) => void;
}

export function elicitingServices(server: Server, o: ElicitationOptions): ElicitingServices {
  const canAsk = (): boolean => !o.noInput && server.getClientCapabilities()?.elicitation !== undefined;
  return {
    async confirm(request) {
      if (o.yes) {
        o.note(`[${request.extension}] confirmed by --yes: ${request.prompt}`);
        return true;
      }
      if (!canAsk()) {
        o.note(`[${request.extension}] denied (the MCP client cannot be asked): ${request.prompt}`);
        return false;
      }
      const message = request.detail ? `${request.prompt}\n\n${request.detail}` : request.prompt;
      try {
        const answer = await server.elicitInput(
          {
            mode: "form",
            message: `[${request.extension}] ${message}`,
            requestedSchema: {
              type: "object",
              properties: { confirm: { type: "boolean", title: request.prompt, default: request.default } },
              required: ["confirm"],
            },
          },
          { signal: request.signal },
        );
        return answer.action === "accept" && answer.content?.["confirm"] === true;
      } catch (err) {
        o.note(`[${request.extension}] denied: the elicitation failed (${errorText(err)})`);
        return false;
      }
    },
    async input(request) {
      if (request.secret) {
        o.note(`[${request.extension}] secret input refused: MCP elicitation must not ask for secrets`);
        return null;
      }
      if (!canAsk()) {
        o.note(`[${request.extension}] input cancelled (the MCP client cannot be asked): ${request.prompt}`);
        return null;
      }
      try {
        const answer = await server.elicitInput(
          {
            mode: "form",
            message: `[${request.extension}] ${request.prompt}`,
            requestedSchema: {
              type: "object",
              properties: { value: { type: "string", title: request.prompt } },
              required: ["value"],
            },
          },
          { signal: request.signal },
        );
        const value = answer.content?.["value"];
        return answer.action === "accept" && typeof value === "string" ? value : null;
      } catch (err) {
        o.note(`[${request.extension}] input cancelled: the elicitation failed (${errorText(err)})`);
        return null;
      }
    },
  };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
