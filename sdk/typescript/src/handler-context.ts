/**
 * The ctx a handler receives: its request's cancellation and progress, the execution context the
 * params carried, and the reverse requests (confirm, input, publishArtifact) made within its scope.
 */
import type { HandlerContext, NotificationInput } from "./types.js";
import type { RequestScope, Link } from "./request-scope.js";
import { confirm, input } from "./reverse-requests.js";
import { publishArtifact } from "./artifacts.js";
import { parentOf, sessionApi } from "./session.js";
import { activeToolsApi } from "./message-injection.js";
import { sessionControlApi } from "./session-control.js";
import { TerminalGrants } from "./terminal.js";
import { composerApi } from "./frontend.js";

export function handlerContext(
  scope: RequestScope,
  link: Link,
  context: HandlerContext["context"],
  notify: (notification: NotificationInput) => void,
  terminal: TerminalGrants = new TerminalGrants(),
): HandlerContext {
  return {
    get signal() {
      return scope.signal;
    },
    requestId: scope.id,
    method: scope.method,
    context,
    progress: scope.progress,
    notify: (n) => notify(n),
    confirm: (options) => confirm(scope, link, options),
    input: (options) => input(scope, link, options),
    publishArtifact: (source, mimeType, options) => publishArtifact(scope, link, source, mimeType, options),
    throwIfCancelled: () => scope.throwIfCancelled(),
    session: sessionApi(
      () => scope,
      () => link,
    ),
    tools: activeToolsApi(
      parentOf,
      () => scope,
      () => link,
    ),
    sessionControl: sessionControlApi(
      () => scope,
      () => link,
      () => context?.resource_owner,
    ),
    terminal: terminal.api(
      () => scope,
      () => link,
    ),
    composer: composerApi(
      () => scope,
      () => link,
    ),
  };
}
