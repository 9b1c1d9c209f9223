/** Help texts: each teaches the command with a working example. */
import { OCTET_VERSION } from "@octet/protocol";
import { CHECK_HELP, TRACE_HELP } from "./check-trace-help.js";

export const MAIN_HELP = `octet ${OCTET_VERSION}: run, inspect, call and check octet extensions

Usage:
  octet [FLAGS]                          interactive session (type /help inside)
  octet [FLAGS] extensions list          every discovered extension and whether it can start
  octet [FLAGS] extensions status        start the enabled extensions and show their state
  octet [FLAGS] extensions reload [NAME] start them, replace NAME (default: all) with a new generation
  octet [FLAGS] extensions validate [NAME...]
                                         check manifests without starting anything (exit 1 if
                                         any is invalid): a lint for CI
  octet [FLAGS] tools [TOOL...]          every ready tool with its parameters and output schema
  octet [FLAGS] call TOOL [ARGS_JSON]    call a tool and print its result
  octet [FLAGS] command NAME [ARG...]    run an extension's slash command
  octet [FLAGS] run PROMPT               run one prompt with the model and print the answer
                                         (--json: one event per line)
  octet [FLAGS] sessions list [all]      the sessions of this workspace (all: every workspace)
  octet [FLAGS] models [all]             models with a key set and those of models.json
  octet [FLAGS] config                   the effective configuration and where each value came from
  octet completion bash|zsh|fish         a shell completion script (source <(octet completion bash))
  octet [FLAGS] mcp serve                the enabled extensions' tools as an MCP server on stdio
  octet init [--ts|--python|--pi] NAME  a new extension folder NAME that passes its own test
  octet [FLAGS] check [MANIFEST_OR_FOLDER...]
                                         the conformance kit: check an extension (any language)
                                         against the protocol's requirements; exit 1 on a failure
  octet [FLAGS] trace FILE               show a --trace file readably
  octet COMMAND --help                   help for one command

Flags:
  -e, --extension PATH     load and enable one extension: a folder with extension.toml (or
                           pi-extension.json), or a pi extension file or folder; repeatable;
                           trusted, like --extension-dir and --pi-extension
  --extension-dir DIR      also look for extensions in DIR (DIR/*/extension.toml or
                           DIR/extension.toml); repeatable; these are trusted
  --pi-extension PATH      load a pi extension (a .ts/.js file, or a folder with index.ts or a
                           package.json "pi" entry) in QuickJS; enabled and trusted; repeatable
  --pi-runtime RUNTIME     where the --pi-extension paths run: quickjs (default, sandboxed) or
                           node (a Node process with the full pi API: fs, child_process, pi.exec)
  --pi-flag NAME[=VALUE]   a pi extension flag (pi's --NAME, read with pi.getFlag); repeatable
  --mcp-config FILE        run the MCP stdio servers of FILE (Claude's {"mcpServers": {...}}
                           format, e.g. .mcp.json) as extensions; enabled and trusted; repeatable
  --enable-extension NAME  start extension NAME (nothing starts unless enabled); repeatable
  --trust-extension NAME   trust extension NAME (needed for project extensions); repeatable
  --safe-mode              start only extensions with an explicit trust grant
  --workspace DIR          the workspace: the extensions' working directory (default: .)
  --json                   machine-readable JSON on stdout, nothing else on stdout
  -v, --verbose            also show extension stderr and informational diagnostics
  -y, --yes                accept every confirmation without asking (for scripts); each one
                           is still noted on stderr
  --no-input               never ask: confirmations are denied, input requests cancelled
  --media-dir DIR          where call saves a result's images and audio (default ./octet-media)
  --policy FILE            answer the extensions' policy/evaluate from FILE (.toml or .json):
                           operation = "allow" | "ask" | "deny"; "ask" is put to you on the
                           terminal (never by --yes); unlisted operations are denied
  --secret NAME=ENV_VAR    hand secret NAME (declared in the extension's [capabilities].secrets)
                           the value of ENV_VAR, read when asked; repeatable; only the variables
                           you name are ever read
  -m, --model PROVIDER/ID  the model, e.g. anthropic/claude-sonnet-4-5 (key from
                           ANTHROPIC_API_KEY) or a model of $OCTET_HOME/models.json; default:
                           "model" in $OCTET_HOME/settings.json
  -c, --continue           continue the latest session of this workspace
  -r, --resume ID          continue session ID (an id or a unique prefix; octet sessions list)
  --max-turns N            model requests per prompt before the run stops (default 50)
  --no-config              read neither config.toml (see octet config --help)
  --trace FILE             append every extension frame, both ways, to FILE as JSON lines
                           (secrets redacted; also OCTET_TRACE=FILE); octet trace FILE shows it
  -h, --help               this help
  --version                print the octet version

Settings that are not actions can live in $OCTET_HOME/config.toml and in
<workspace>/.octet/config.toml (the command line wins, then the workspace file, then the home
file); octet config shows what is in effect and why, octet config --help the keys.

Extensions are found in three places, the first of a name winning: DIR given by
--extension-dir (source "explicit"), $OCTET_HOME/extensions/*/ (default ~/.octet/extensions,
source "global") and <workspace>/.octet/extensions/*/ (source "project").

Examples:
  octet --extension-dir examples extensions validate      # lint every manifest under examples/
  octet --extension-dir examples --enable-extension typed-tools tools  # each tool's parameters
  octet --extension-dir examples --enable-extension hello-world call hello_world '{"name":"you"}'
  octet --extension-dir examples --enable-extension hello-world        # shell; edit, then /reload

When a tool or command is not found, octet names every enabled extension that is not ready and
why: its manifest error (file and key), its start failure (the error lines of its stderr), or
why it is parked or untrusted.

Policy and secrets (API 0.2 extensions):
  GUARDED_TOKEN=s3cret octet --extension-dir examples --enable-extension guarded \\
    --policy examples/guarded/policy.toml --secret guarded.api_token=GUARDED_TOKEN \\
    call publish '{"text":"hello"}'
  A policy file (the most specific rule wins: exact name, then "prefix.*", then "*", then default):
    default = "deny"
    [operations]
    "guarded.publish" = "ask"
    "guarded.*" = "allow"

Confirmations and input requests are asked on the terminal (stdin and stderr TTYs; a secret
answer is not echoed, Ctrl-C cancels the call); without a terminal they are denied and
cancelled unless --yes. Progress of a call is drawn on stderr when it is a terminal; a tool's
own output (progress "output" events) always goes to stderr, prefixed [TOOL stdout|stderr].

Exit status: 0 success, 1 the tool or command reported an error, 2 usage error,
3 an extension, tool or command could not be started or reached, 130 interrupted.
`;

export const COMMAND_HELP: Record<string, string> = {
  mcp: `Usage:
  octet [FLAGS] mcp serve

Serves the enabled extensions over MCP on stdio, for an MCP client (Claude Code, Claude
Desktop, Cursor, the MCP Inspector): their tools as MCP tools (JSON Schemas from octet's
catalog; images and audio as image/audio content; errors as isError results), their commands
as prompts. Progress becomes MCP progress, the client's cancellation cancels the call, and
confirmations and input requests are asked by MCP elicitation when the client supports it
(denied and cancelled otherwise; --yes accepts confirmations). Tools that appear or go
(dynamic tools, a restart) send tools/list_changed. stdout carries MCP only; diagnostics go
to stderr. It ends when the client closes stdin.

Example (Claude Code: claude mcp add octet -- octet mcp serve ...):
  octet mcp serve --extension-dir examples --enable-extension hello-world

MCP servers the other way round, as octet extensions: an mcp-server.json in an extension
folder ({"name": "demo", "command": "node", "args": ["./server.mjs"]}, see examples/mcp-server)
or --mcp-config .mcp.json:
  octet --extension-dir examples --enable-extension mcp-demo call echo '{"text":"hi"}'
`,
  init: `Usage:
  octet init [--ts | --python | --pi] NAME

Creates the folder NAME (which must not exist, or be empty) with a working extension: its
manifest, its source (one tool, NAME_greet, and one slash command, /NAME), a test that runs it
under the real octet host, a README with the build, install and test commands, and a .gitignore.
It passes its own test and \`octet extensions validate\` as created. NAME is the extension's
name: lowercase letters, digits, "-" and "_", starting with a letter or digit, at most 64.

  --ts       TypeScript with @octet/extension (the default); npm test builds and runs
             test/*.test.mjs with @octet/extension/testing
  --python   Python with octet-extension-sdk in ./.venv; .venv/bin/python -m unittest runs
             test_extension.py with octet_extension.testing (it needs octet on PATH)
  --pi       a pi extension (index.ts, loaded as octet --pi-extension . and pi -e . load it)
             run in octet's QuickJS sandbox; npm test runs it with @octet/extension/testing

The octet packages are pinned to this version (${OCTET_VERSION}). OCTET_INIT_TARBALLS=DIR takes them
from local files instead: DIR holds the npm pack tarballs (octet-cli-${OCTET_VERSION}.tgz, ...) and,
for --python, the wheel.

Example:
  octet init --ts my-ext && cd my-ext && npm install && npm test
  octet --extension-dir . --enable-extension my-ext call my_ext_greet '{"name":"you"}'
`,
  check: CHECK_HELP,
  trace: TRACE_HELP,
  extensions: `Usage:
  octet [FLAGS] extensions list     list discovered extensions: name, version, api_version,
                                    source, manifest path, enabled, trusted, validation errors
  octet [FLAGS] extensions status   start the enabled extensions, then show per extension its
                                    state, process generation, pid, negotiated features, pending
                                    requests, health, restarts and last error (and the tail of
                                    the stderr of one that failed); then stop them
  octet [FLAGS] extensions reload [NAME]
                                    start them, then replace NAME (default: every running one)
                                    with a new generation as a long-running host would: the new
                                    one is started and negotiated first, then the old one drains
                                    (2 s at most) and stops; a changed catalog is refused
                                    ("re-registration required": in the shell, /reload
                                    rebuilds the host and takes the new catalog); then show
                                    the status
  octet [FLAGS] extensions validate [NAME...]
                                    check the manifests without starting anything; every error
                                    with its file and key; exit 1 if any is invalid (see
                                    octet extensions validate --help)

A crashed extension is restarted automatically (after 0-250 ms, doubling to at most 30 s); after
eight failed restarts it is parked until reloaded. Add --json for a JSON array on stdout. Examples:
  octet --extension-dir examples --enable-extension hello-world extensions status
  octet --extension-dir examples --enable-extension hello-world extensions reload hello-world
  octet --extension-dir examples extensions validate
`,
  "extensions validate": `Usage:
  octet [FLAGS] extensions validate [NAME...]

Checks the manifests discovered (with --extension-dir DIR, ~/.octet/extensions and
./.octet/extensions), or only those named, without starting anything. Prints "ok" or
"INVALID" per extension and, under each invalid one, every error with its file and key (or
line and column for a TOML syntax error). Exits 1 when any manifest is invalid or a NAME was
not discovered, 0 otherwise: use it in CI. --json prints
{"valid": bool, "extensions": [{name, manifest_path, valid, errors}], "not_discovered": [...]}.

Examples:
  octet --extension-dir examples extensions validate
  octet --extension-dir ./my-ext extensions validate my-ext
  octet --extension-dir examples --json extensions validate hello-world typed-tools
`,
  tools: `Usage:
  octet [FLAGS] tools [TOOL...]

Starts the enabled extensions and shows every ready tool (or only the TOOLs named): its
signature, description, each parameter as "name: type, required|optional, default ..." with
enum values and ranges, and what it returns (its output schema, or text). --json prints the
definitions as the model sees them: [{extension, name, description, parameters,
output_schema}]. Exit 3 when a named tool is not there or an enabled extension is not ready
(each one named with why). In the shell: /tools, and /tools NAME for one tool.

Example:
  octet --extension-dir examples --enable-extension typed-tools tools simulate
    simulate(circuit: string, steps?: integer, probes: string[], ...) -> { ... }    [typed-tools]
      Simulate a circuit and read its probes
      parameters:
        circuit: string, required — The circuit to simulate
        steps: integer (1..1000), optional, default 100
        mode: "dc" | "transient", optional, default "dc"
      returns: structured { probes: string[], volts: number[], steps: integer }
`,
  call: `Usage:
  octet [FLAGS] call TOOL [ARGS_JSON]

Starts the enabled extensions, calls TOOL with ARGS_JSON (a JSON object; default {}), prints
the result text, and stops the extensions. With --json, prints the whole result object (and
nothing else on stdout). Ctrl-C cancels the call. Progress goes to stderr: a bar or spinner
on a terminal, and the tool's own output lines prefixed [TOOL stdout] / [TOOL stderr].
Confirmations: --yes accepts them, --no-input denies them (and cancels input requests).
Images and audio in the result are saved to --media-dir (default ./octet-media) as
TOOL-N.EXT, never overwriting a file; their paths go to stderr, and with --json into "media".

Exit status: 0 success, 1 the tool returned an error result, 2 usage error (for example
ARGS_JSON is not a JSON object), 3 the tool or its extension could not be started or reached.

Example:
  octet --extension-dir examples --enable-extension hello-world call hello_world '{"name":"you"}'
`,
  run: `Usage: octet [FLAGS] run PROMPT        (or: echo PROMPT | octet run)

Runs one prompt with the model, headless: the model may call the built-in tools (read, write,
edit, bash) and the enabled extensions' tools; the final answer goes to stdout (streamed when
stdout is a terminal), tool calls and errors to stderr. --json prints one event per line instead
(run_start, turn_start, text_delta, tool_call, tool_result, turn_end with usage, run_end).
Each run is saved as a session (octet sessions list); --continue / --resume ID add to one.

write, edit and bash change things, so they are asked first on a terminal; without one they are
refused unless --yes, or a --policy file allows builtin.write / builtin.edit / builtin.bash.

The model: --model PROVIDER/ID, else "model" in $OCTET_HOME/settings.json. Keys come from the
usual variables (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, ...).
A local or custom OpenAI-compatible server goes in $OCTET_HOME/models.json, pi's format:
  {"providers": {"ollama": {"baseUrl": "http://localhost:11434/v1", "api": "openai-completions",
                            "apiKey": "ollama", "models": [{"id": "llama3.1:8b"}]}}}
then: octet --model ollama/llama3.1:8b run "hello"

Examples:
  ANTHROPIC_API_KEY=... octet --model anthropic/claude-sonnet-4-5 run "what does this repo do?"
  octet --model ollama/llama3.1:8b --extension-dir examples --enable-extension hello-world \\
    run "greet octet with the hello_world tool"
  octet --json --model ollama/llama3.1:8b run "list the files" | jq -c 'select(.type=="tool_call")'

Exit status: 0 answered, 1 denied, or stopped at the turn limit (--max-turns) or the output
limit, 2 usage or configuration (no model, unknown model, missing key, session locked), 3 the
run failed (the provider: auth, rate limit, network, the message says which; or the session
could not be written), 130 interrupted. With --json a failure is one {"type":"error"} line.
`,
  sessions: `Usage: octet [FLAGS] sessions list [all]

Lists the sessions of this workspace (all: of every workspace), newest first: id, last change,
entries, and the name (/name) or first prompt. Sessions are JSONL files under
$OCTET_HOME/sessions/; continue one with --resume ID (a unique prefix is enough) or the latest
of this workspace with --continue.
`,
  models: `Usage: octet [FLAGS] models [all]

Lists the models whose key is set and every model of $OCTET_HOME/models.json (all: every model
octet knows). Use one with --model PROVIDER/ID.
`,
  config: `Usage:
  octet [FLAGS] config

Shows the effective configuration of this command line in this workspace: every setting, its
value, and where it came from: a flag, $OCTET_HOME/config.toml (home, default ~/.octet), the
workspace's .octet/config.toml, $OCTET_HOME/settings.json (model only), or the default. Starts
nothing. --json prints {workspace, files, settings: {KEY: {value, source} or [{value, source}]}}.

A single value comes from the first that sets it: the command line, the workspace file, the home
file, then (model only) settings.json, then the default. Lists (extension_dirs, extensions,
pi_extensions, enable, trust) and tables (secrets, pi_flags) merge: the command line and the
workspace add to the home file's; a table key set higher wins (pi_flags: false unsets one).
safe_mode and verbose are on when any of them turns them on. --no-config reads neither file.

Keys (each is the flag of the same name):
  extension_dirs = ["~/octet-extensions"]      --extension-dir (home file only)
  extensions = ["~/src/my-ext", "~/pi/x.ts"]   -e (home file only)
  pi_extensions = ["~/pi/plan-mode.ts"]        --pi-extension (home file only)
  pi_runtime = "quickjs"                       --pi-runtime (home file only)
  pi_flags = { plan = true }                   --pi-flag
  enable = ["hello-world"]                     --enable-extension
  trust = ["my-project-ext"]                   --trust-extension (home file only)
  safe_mode = false                            --safe-mode
  model = "anthropic/claude-sonnet-4-5"        --model (over settings.json's "model")
  policy = "~/.octet/policy.toml"              --policy (home file only)
  max_turns = 50                               --max-turns
  media_dir = "octet-media"                    --media-dir (a workspace's: inside it)
  verbose = false                              --verbose
  [secrets]
  "guarded.api_token" = "GUARDED_TOKEN"        --secret (home file only)
--yes, --no-input, --json, --workspace, --continue and --resume are not keys: they decide one
run, and a file would decide them for every later run without asking.
Relative paths are relative to $OCTET_HOME in the home file and to the workspace in the
workspace file; "~/" is your home. A workspace file arrives with a cloned repository, so it
cannot trust, map secrets, choose the policy or the pi runtime, or load extensions by path
(what is loaded by path is trusted): its own extensions go in .octet/extensions/ and start only
once you trust them by name. Every bad key or value is an error naming the file and the key.

Examples:
  octet config
  octet -e examples/typed-tools --json config        # -e adds the folder and enables typed-tools
  mkdir -p ~/.octet && printf 'extension_dirs = ["%s/examples"]\\nenable = ["hello-world"]\\n' "$PWD" \\
    >> ~/.octet/config.toml && octet call hello_world '{"name":"config"}'
`,
  completion: `Usage:
  octet completion bash|zsh|fish

Prints a completion script for commands, subcommands, flags, and extension, tool and command
names. The names come from the manifests the command line so far would find (its
--extension-dir, -e and --workspace flags and the config files): nothing is started.

Examples:
  source <(octet completion bash)                         # this bash; add it to ~/.bashrc to keep it
  octet completion bash > ~/.local/share/bash-completion/completions/octet
  octet completion zsh > "\${fpath[1]}/_octet"             # zsh, after compinit
  octet completion fish > ~/.config/fish/completions/octet.fish
`,
  command: `Usage:
  octet [FLAGS] command NAME [ARG...]

Runs the extension slash command /NAME with the given arguments and prints its text and
notifications. Put "--" before arguments that start with "-".

Example:
  octet --extension-dir examples --enable-extension hello-world command hello you
`,
};

export const SHELL_HELP = `Commands:
  /extensions status       state, generation, features, pending requests, health, last error
  /extensions list         discovered extensions
  /extensions reload [N]   restart extension N (default: all) as a new generation; refused
                           when its tools or commands changed: use /reload for that
  /reload                  rebuild the host from the manifests on disk: stops every extension,
                           rediscovers and starts them again, taking changed catalogs
                           (descriptions, schemas, new tools) and changed manifests
  /extensions show N [A]   extension N's presentation: status, activities, items, detail,
                           actions; with A, run action A (routed to N's declared command)
  /tools                   tools of the running extensions
  /tools NAME              one tool's parameters (type, required, enum, default) and output
  /commands                slash commands of the running extensions
  /call TOOL {json}        call a tool, e.g. /call hello_world {"name":"you"}; the result is
                           shown through the extension's renderer when it has one
  /menu NAME               the menu of extension NAME: a tree of actions with their paths
  /menu NAME PATH          run the menu action at PATH, e.g. /menu my-ext setup or
                           /menu my-ext tools/clean (destructive actions are confirmed first)
  /NAME [args]             run an extension's slash command, e.g. /hello you
  /help                    this list
  /quit                    stop the extensions and leave (also Ctrl-D)
With a model (--model PROVIDER/ID, or "model" in $OCTET_HOME/settings.json):
  any line not starting /  a prompt: the model answers, calling the built-in tools (read,
                           write, edit, bash) and the extensions' tools; changes are asked
                           first ([y]es, [N]o, [a]lways for this session)
  !COMMAND                 run COMMAND with bash in the workspace; its output goes into the
                           model's context (a pi extension's user_bash may run it instead)
  !!COMMAND                the same, kept out of the model's context (recorded in the session)
  /session                 this session's id, name, file, entries, context size and model
  /name NAME               name the session (octet sessions list shows it)
  /model [PROVIDER/ID]     show or switch the model (octet models lists them)
  /compact [FOCUS]         summarize the older part of the session now
  /thinking [LEVEL]        show or set the thinking level (off, minimal, low, medium, high, xhigh)
  /new                     start a new session (the current one is kept; extensions may cancel)
  /fork ENTRY_ID [at]      a new session with this one's history up to before that user message
                           (with "at": through that entry); /session tree lists the entry ids
  /tree ENTRY_ID [summary] move this session back to that entry (with "summary": the branch left
                           is summarized into the session first)
Ctrl-C cancels a running call or prompt; pressed again at the prompt, it leaves.
`;
