/**
 * The ctx a handler receives: its request's cancellation and progress, the execution context the
 * params carried, and the reverse requests (confirm, input, publishArtifact) made within its scope.
 *
 * Built once per request, so nothing is built until the handler asks for it: each member is a
 * getter on the prototype, and the service objects (session, tools, sessionControl, terminal,
 * composer) are made on first use and kept. Building them all eagerly was the largest single cost
 * of a small tool call in the extension. The methods are handed out as closures, not prototype
 * methods, so `const { confirm } = ctx` keeps working.
 */
import type {
  ActiveToolsApi,
  ComposerApi,
  HandlerContext,
  NotificationInput,
  Progress,
  SessionApi,
  TerminalApi,
} from "./types.js";
import type { SessionControlApi } from "./session-control.js";
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
  return new RequestContext(scope, link, context, notify, terminal);
}

class RequestContext implements HandlerContext {
  readonly #scope: RequestScope;
  readonly #link: Link;
  readonly #notify: (notification: NotificationInput) => void;
  readonly #terminal: TerminalGrants;
  readonly context: HandlerContext["context"];
  #session: SessionApi | undefined;
  #tools: ActiveToolsApi | undefined;
  #sessionControl: SessionControlApi | undefined;
  #terminalApi: TerminalApi | undefined;
  #composer: ComposerApi | undefined;

  constructor(
    scope: RequestScope,
    link: Link,
    context: HandlerContext["context"],
    notify: (notification: NotificationInput) => void,
    terminal: TerminalGrants,
  ) {
    this.#scope = scope;
    this.#link = link;
    this.context = context;
    this.#notify = notify;
    this.#terminal = terminal;
  }

  get signal(): AbortSignal {
    return this.#scope.signal;
  }
  get requestId(): RequestScope["id"] {
    return this.#scope.id;
  }
  get method(): string {
    return this.#scope.method;
  }
  get progress(): Progress {
    return this.#scope.progress;
  }
  get notify(): HandlerContext["notify"] {
    return (n) => this.#notify(n);
  }
  get confirm(): HandlerContext["confirm"] {
    return (options) => confirm(this.#scope, this.#link, options);
  }
  get input(): HandlerContext["input"] {
    return (options) => input(this.#scope, this.#link, options);
  }
  get publishArtifact(): HandlerContext["publishArtifact"] {
    return (source, mimeType, options) => publishArtifact(this.#scope, this.#link, source, mimeType, options);
  }
  get throwIfCancelled(): HandlerContext["throwIfCancelled"] {
    return () => this.#scope.throwIfCancelled();
  }
  get session(): SessionApi {
    return (this.#session ??= sessionApi(
      () => this.#scope,
      () => this.#link,
    ));
  }
  get tools(): ActiveToolsApi {
    return (this.#tools ??= activeToolsApi(
      parentOf,
      () => this.#scope,
      () => this.#link,
    ));
  }
  get sessionControl(): SessionControlApi {
    return (this.#sessionControl ??= sessionControlApi(
      () => this.#scope,
      () => this.#link,
      () => this.context?.resource_owner,
    ));
  }
  get terminal(): TerminalApi {
    return (this.#terminalApi ??= this.#terminal.api(
      () => this.#scope,
      () => this.#link,
    ));
  }
  get composer(): ComposerApi {
    return (this.#composer ??= composerApi(
      () => this.#scope,
      () => this.#link,
    ));
  }
}
