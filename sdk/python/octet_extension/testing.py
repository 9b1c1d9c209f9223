"""A test harness for extension authors: runs an extension folder under the real octet host.

Each call starts the extension with the `octet` command (`octet --json call ...`), so a test
sees exactly what octet's users see: the manifest checked, the process started and negotiated,
arguments and results checked against their schemas, the process group stopped afterwards.
Why the command and not a Python host: the host's checks are the point of the test, and one
implementation of them (octet's) cannot drift from another. The price is one host start per
call (tens of milliseconds plus the extension's own start).

The `octet` command is found in $OCTET_BIN, else on PATH (`npm install -g @octet/cli`, or a
project's node_modules/.bin). Standard library only, like the rest of the SDK.

    from octet_extension.testing import ExtensionUnderTest
    ext = ExtensionUnderTest("path/to/my-ext")
    assert ext.call("my_ext_greet", {"name": "you"}).text == "Hello, you!"
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Union

__all__ = ["ExtensionUnderTest", "CallResult", "OctetCallError"]

# octet's exit statuses (packages/cli/src/exit-codes.ts).
_EXIT_OK, _EXIT_TOOL_ERROR = 0, 1


class OctetCallError(Exception):
    """The call could not be made: the extension did not start, the tool is unknown, the host
    refused the arguments, or the extension answered with a JSON-RPC error. `code` is octet's
    error code, `stderr` what octet printed."""

    def __init__(self, message: str, code: Any = None, stderr: str = "", status: int = 0):
        super().__init__(message)
        self.code = code
        self.stderr = stderr
        self.status = status


class CallResult:
    """One tool call's result as octet reports it (`octet --json call`)."""

    def __init__(self, raw: Dict[str, Any], stderr: str):
        self.raw = raw
        self.text: str = raw.get("text", "")
        self.is_error: bool = bool(raw.get("is_error", False))
        self.content: List[Dict[str, Any]] = raw.get("content", [])
        self.structured: Any = raw.get("structured_content")
        #: What octet printed on stderr: notifications, diagnostics, the tool's own output lines.
        self.stderr = stderr

    def __repr__(self) -> str:
        return f"CallResult(is_error={self.is_error!r}, text={self.text!r})"


def _manifest_name(folder: str) -> str:
    toml = os.path.join(folder, "extension.toml")
    if os.path.exists(toml):
        with open(toml, encoding="utf-8") as f:
            m = re.search(r'^name\s*=\s*"([^"]+)"', f.read(), re.M)
        if m:
            return m.group(1)
        raise ValueError(f'{toml}: no name = "..." line')
    pi = os.path.join(folder, "pi-extension.json")
    if os.path.exists(pi):
        with open(pi, encoding="utf-8") as f:
            return str(json.load(f)["id"])
    raise ValueError(f"{folder}: no extension.toml or pi-extension.json there")


class ExtensionUnderTest:
    """The extension in `folder`, run by the `octet` command for each call.

    `yes`: accept its confirmations (octet --yes); otherwise they are denied and input requests
    cancelled (octet --no-input), as in any run without a person. `workspace`: the extension's
    working directory (default: a fresh temporary folder). `env`: extra environment variables.
    """

    def __init__(self, folder: str, *, yes: bool = False, workspace: Optional[str] = None,
                 env: Optional[Dict[str, str]] = None, octet: Optional[str] = None, timeout: float = 60.0):
        self.folder = os.path.abspath(folder)
        self.name = _manifest_name(self.folder)
        self.yes = yes
        self.timeout = timeout
        self._workspace = workspace
        self._env = dict(env or {})
        self._octet = octet or os.environ.get("OCTET_BIN") or shutil.which("octet")
        if not self._octet:
            raise RuntimeError("the octet command is not on PATH: npm install -g @octet/cli, or set OCTET_BIN")

    def _run(self, args: Sequence[str]) -> "subprocess.CompletedProcess[str]":
        with tempfile.TemporaryDirectory(prefix="octet-testing-") as temp:
            env = dict(os.environ)
            # Hermetic: no global extensions of this machine, no user settings.
            env["OCTET_HOME"] = os.path.join(temp, "home")
            env.update(self._env)
            argv = [self._octet, "--extension-dir", self.folder, "--enable-extension", self.name,
                    "--workspace", self._workspace or temp, "--yes" if self.yes else "--no-input",
                    "--media-dir", os.path.join(temp, "media"), "--json", *args]
            return subprocess.run(argv, capture_output=True, text=True, timeout=self.timeout, env=env)

    def _json(self, proc: "subprocess.CompletedProcess[str]") -> Dict[str, Any]:
        try:
            doc = json.loads(proc.stdout)
        except ValueError:
            raise OctetCallError(f"octet exited {proc.returncode} without JSON: {proc.stderr.strip()}",
                                 stderr=proc.stderr, status=proc.returncode) from None
        if isinstance(doc, dict) and isinstance(doc.get("error"), dict):
            err = doc["error"]
            raise OctetCallError(str(err.get("message")), err.get("code"), proc.stderr, proc.returncode)
        return doc

    def call(self, tool: str, args: Optional[Dict[str, Any]] = None) -> CallResult:
        """Calls `tool`; a tool's error result comes back with is_error True, anything that kept
        the call from being made raises OctetCallError."""
        proc = self._run(["call", tool, json.dumps(args or {})])
        doc = self._json(proc)
        if proc.returncode not in (_EXIT_OK, _EXIT_TOOL_ERROR):
            raise OctetCallError(f"octet exited {proc.returncode}: {proc.stderr.strip()}",
                                 stderr=proc.stderr, status=proc.returncode)
        return CallResult(doc, proc.stderr)

    def command(self, name: str, args: Union[str, Sequence[str]] = ()) -> Dict[str, Any]:
        """Runs the slash command /name: {"text", "notifications", "context", ...}."""
        words = args.split() if isinstance(args, str) else list(args)
        proc = self._run(["command", name.lstrip("/"), "--", *words])
        return self._json(proc)

    def tools(self) -> List[Dict[str, Any]]:
        """The tools it publishes, as the model sees them: [{name, description, parameters, ...}]."""
        return self._json(self._run(["tools"]))  # type: ignore[return-value]

    def validate(self) -> Dict[str, Any]:
        """`octet extensions validate` of its manifest: {"valid": bool, "extensions": [...]}."""
        return self._json(self._run(["extensions", "validate", self.name]))
