"""The wire methods of octet, GENERATED from packages/protocol/src/methods/ (issue 14.1).

Do not edit: run `node scripts/gen-python-methods.mjs` after `npm run build`. A test
(tests/e2e/python-methods.test.ts) fails when this file and the TypeScript table drift apart.
Each method: who sends it, whether it is answered, the negotiated feature that must be on
for it to be legal (None for core methods), and the API versions that carry it.
"""
from typing import NamedTuple, Optional, Tuple


class MethodSpec(NamedTuple):
    method: str
    direction: str  # "host->child", "child->host" or "both"
    kind: str  # "request" or "notification"
    feature: Optional[str]
    api_versions: Tuple[str, ...]


API_VERSIONS = ("0.1", "0.2", "0.4")
HOOK_NAMES = ("before_prompt", "after_response", "before_tool_call", "after_tool_call")
ADVISORY_HOOKS = ("cache_warming_decision", "compaction_strategy")
TURN_HOOKS = ("model_turn_start", "model_turn_end")
COMPACTION_HOOKS = ("session_before_compact", "session_compact")

METHODS = {
    "initialize": MethodSpec(
        "initialize", "host->child", "request", None, ("0.1", "0.2", "0.4")),
    "shutdown": MethodSpec(
        "shutdown", "host->child", "request", None, ("0.1", "0.2", "0.4")),
    "$/cancelRequest": MethodSpec(
        "$/cancelRequest", "both", "notification", "request_cancellation", ("0.2", "0.4")),
    "tool/call": MethodSpec(
        "tool/call", "host->child", "request", None, ("0.1", "0.2", "0.4")),
    "command/execute": MethodSpec(
        "command/execute", "host->child", "request", None, ("0.1", "0.2", "0.4")),
    "hook/run": MethodSpec(
        "hook/run", "host->child", "request", None, ("0.1", "0.2", "0.4")),
    "context/collect": MethodSpec(
        "context/collect", "host->child", "request", None, ("0.1", "0.2", "0.4")),
    "status/collect": MethodSpec(
        "status/collect", "host->child", "request", None, ("0.1", "0.2", "0.4")),
    "tool/render": MethodSpec(
        "tool/render", "host->child", "request", None, ("0.1", "0.2", "0.4")),
    "notification": MethodSpec(
        "notification", "child->host", "notification", None, ("0.1", "0.2", "0.4")),
    "context/contribution": MethodSpec(
        "context/contribution", "child->host", "notification", None, ("0.1", "0.2", "0.4")),
    "status/contribution": MethodSpec(
        "status/contribution", "child->host", "notification", None, ("0.1", "0.2", "0.4")),
    "confirmation/request": MethodSpec(
        "confirmation/request", "child->host", "request", None, ("0.1", "0.2", "0.4")),
    "input/request": MethodSpec(
        "input/request", "child->host", "request", None, ("0.2", "0.4")),
    "$/progress": MethodSpec(
        "$/progress", "child->host", "notification", "request_progress", ("0.2", "0.4")),
    "session/started": MethodSpec(
        "session/started", "host->child", "notification", "lifecycle_events", ("0.2", "0.4")),
    "session/settled": MethodSpec(
        "session/settled", "host->child", "notification", "lifecycle_events", ("0.2", "0.4")),
    "turn/started": MethodSpec(
        "turn/started", "host->child", "notification", "lifecycle_events", ("0.2", "0.4")),
    "turn/settled": MethodSpec(
        "turn/settled", "host->child", "notification", "lifecycle_events", ("0.2", "0.4")),
    "tool/started": MethodSpec(
        "tool/started", "host->child", "notification", "lifecycle_events", ("0.2", "0.4")),
    "tool/settled": MethodSpec(
        "tool/settled", "host->child", "notification", "lifecycle_events", ("0.2", "0.4")),
    "menu/collect": MethodSpec(
        "menu/collect", "host->child", "request", None, ("0.2", "0.4")),
    "artifact/publish": MethodSpec(
        "artifact/publish", "child->host", "request", "artifacts", ("0.2", "0.4")),
    "policy/evaluate": MethodSpec(
        "policy/evaluate", "child->host", "request", "policy_intents", ("0.2", "0.4")),
    "secret/get": MethodSpec(
        "secret/get", "child->host", "request", "secrets", ("0.2", "0.4")),
    "provider/credentials": MethodSpec(
        "provider/credentials", "child->host", "request", "provider_credentials", ("0.2", "0.4")),
    "session/append_entry": MethodSpec(
        "session/append_entry", "child->host", "request", "session_entries", ("0.2", "0.4")),
    "session/set_name": MethodSpec(
        "session/set_name", "child->host", "request", "session_entries", ("0.2", "0.4")),
    "session/set_label": MethodSpec(
        "session/set_label", "child->host", "request", "session_entries", ("0.2", "0.4")),
    "session/wait_for_idle": MethodSpec(
        "session/wait_for_idle", "child->host", "request", "session_control_v1", ("0.4",)),
    "session/switch": MethodSpec(
        "session/switch", "child->host", "request", "session_control_v1", ("0.4",)),
    "session/compact": MethodSpec(
        "session/compact", "child->host", "request", "session_compaction_v1", ("0.4",)),
    "presentation/update": MethodSpec(
        "presentation/update", "child->host", "notification", None, ("0.2", "0.4")),
    "tools/register": MethodSpec(
        "tools/register", "child->host", "request", "dynamic_tools", ("0.2", "0.4")),
    "tools/unregister": MethodSpec(
        "tools/unregister", "child->host", "request", "dynamic_tools", ("0.2", "0.4")),
    "session/send_message": MethodSpec(
        "session/send_message", "child->host", "request", "message_injection", ("0.2", "0.4")),
    "session/send_user_message": MethodSpec(
        "session/send_user_message", "child->host", "request", "message_injection", ("0.2", "0.4")),
    "message/updated": MethodSpec(
        "message/updated", "host->child", "notification", "message_injection", ("0.2", "0.4")),
    "message/settled": MethodSpec(
        "message/settled", "host->child", "notification", "message_injection", ("0.2", "0.4")),
    "tools/set_active": MethodSpec(
        "tools/set_active", "child->host", "request", "active_tools", ("0.2", "0.4")),
    "terminal/acquire": MethodSpec(
        "terminal/acquire", "child->host", "request", "terminal_handoff", ("0.2", "0.4")),
    "terminal/release": MethodSpec(
        "terminal/release", "child->host", "request", "terminal_handoff", ("0.2", "0.4")),
    "terminal/grant-lost": MethodSpec(
        "terminal/grant-lost", "host->child", "notification", "terminal_handoff", ("0.2", "0.4")),
    "composer/get": MethodSpec(
        "composer/get", "child->host", "request", "composer", ("0.2", "0.4")),
    "composer/set": MethodSpec(
        "composer/set", "child->host", "request", "composer", ("0.2", "0.4")),
    "composer/insert": MethodSpec(
        "composer/insert", "child->host", "request", "composer", ("0.2", "0.4")),
    "shortcut/register": MethodSpec(
        "shortcut/register", "child->host", "request", "shortcuts", ("0.2", "0.4")),
    "shortcut/trigger": MethodSpec(
        "shortcut/trigger", "host->child", "notification", "shortcuts", ("0.2", "0.4")),
    "ui/autocomplete/register": MethodSpec(
        "ui/autocomplete/register", "child->host", "request", "autocomplete", ("0.2", "0.4")),
    "ui/autocomplete/complete": MethodSpec(
        "ui/autocomplete/complete", "host->child", "request", "autocomplete", ("0.2", "0.4")),
}
