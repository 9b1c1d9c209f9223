/** Help texts of `octet check` and `octet trace` (help.ts lists them with the others). */

export const CHECK_HELP = `Usage:
  octet [FLAGS] check [MANIFEST_OR_FOLDER...]

The conformance kit: starts the extension (any language: extension.toml, or a pi extension's
pi-extension.json) as the host does, in a fresh empty workspace, and checks what every extension
must do whatever its tools, each check named by its requirement ID in REQUIREMENTS.md:
  INIT-*   initialize answered, with the manifest's api_version, its declared tools and commands,
           the API's result shape and a valid feature selection
  TDEF-01  every tool definition valid (name, description, an object schema that compiles)
  ERR-01   an unknown method refused -32601; ERR-02 bad params -32602
  CALL-01  each tool refuses arguments that are not an object (-32602) before its handler runs
  FRAME-*  stdout carries JSON-RPC frames only; bad JSON answered -32700 (id null); a
           "jsonrpc":"1.0" frame refused; a frame over 1 MiB refused or ends it; stdin EOF exits;
           a $/cancelRequest of an unknown id ignored
  CANCEL-04 a cancel storm: every request still answered once, the extension still serving
  SHUT-*   shutdown acknowledged with {} and an exit within 2 s, with requests in flight
No tool's code is run: every call is one the SDK must refuse first. A folder of extensions
checks each one. Prints pass, FAIL (with what was expected and what was seen) or skip (with
why) per check; --json prints {"ok": bool, "reports": [{extension, manifest_path, api, ok,
results: [{id, title, outcome, expected, seen}]}]}. Exit 1 when any check fails: use it in CI.

Examples:
  octet check examples/hello-world
  octet check ./my-ext/extension.toml
  octet --json check examples          # every example, one JSON document
`;

export const TRACE_HELP = `Usage:
  octet [FLAGS] --trace FILE COMMAND ...   (or OCTET_TRACE=FILE octet COMMAND ...)
  octet [FLAGS] trace FILE [--only-extension NAME] [--only-method METHOD] [--follow]

--trace FILE (or the environment variable OCTET_TRACE) appends every frame between octet and
its extensions, both directions, to FILE as JSON lines: {ts, extension, generation, dir ("out":
to the extension, "in": from it), frame}, and {.., error} for a line that was not a frame.
Secrets are redacted: the host's answers to secret/get and provider/credentials, every later
occurrence of such a value, and the string value of any member named like a credential
(token, password, secret, api_key, authorization, cookie, credentials, private_key, ...).

octet trace FILE prints it one line per frame: time, extension#generation, → or ←, the method
(or "result #ID (method)" for an answer) and the body trimmed to one line (-v: whole).
--only-extension NAME and --only-method METHOD (repeatable; "tool/*" for a prefix) filter, an
answer going with its request's method; --follow keeps reading as the file grows (Ctrl-C
stops); --json prints the kept records as they are.

Examples:
  octet --trace frames.jsonl --extension-dir examples --enable-extension hello-world \\
    call hello_world '{"name":"you"}'
  octet trace frames.jsonl
  octet trace --only-method 'tool/*' --follow frames.jsonl
`;
