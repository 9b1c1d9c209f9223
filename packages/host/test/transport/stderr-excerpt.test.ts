/**
 * errorLines (issue 13.4): the lines of a stderr tail that carry the error, for a Node uncaught
 * error (the bottom of whose trace is "}" and "Node.js v20"), a Python traceback, an ESM error with
 * a code, and plain output without an error line.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { errorLines } from "../../src/transport/stderr-excerpt.js";

const NODE_TRACE = `node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module './missing-dep.js'
Require stack:
- /tmp/ext/main.js
    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)
    at Module._load (node:internal/modules/cjs/loader:1051:27)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: [ '/tmp/ext/main.js' ]
}

Node.js v20.20.2
`;

test("issue 13.4: a Node uncaught error yields its first line, not the end of the stack trace", () => {
  assert.deepEqual(errorLines(NODE_TRACE), ["Error: Cannot find module './missing-dep.js'"]);
});

test("issue 13.4: a Python traceback yields its first line and the exception line", () => {
  const tail =
    `starting\nTraceback (most recent call last):\n  File "/x/main.py", line 3, in <module>\n    ` +
    `import nothere\nModuleNotFoundError: No module named 'nothere'\n`;
  assert.deepEqual(errorLines(tail), [
    "Traceback (most recent call last):",
    "ModuleNotFoundError: No module named 'nothere'",
  ]);
});

test("issue 13.4: an ESM error with a code yields its first line; two distinct errors yield both", () => {
  const esm =
    `file:///x/a.mjs:1\nTypeError [ERR_INVALID_ARG_TYPE]: bad "path"\n    at f ` +
    `(file:///x/a.mjs:1:1) {\n  code: 'ERR_INVALID_ARG_TYPE'\n}\n\nNode.js v22.1.0\n`;
  assert.deepEqual(errorLines(esm), ['TypeError [ERR_INVALID_ARG_TYPE]: bad "path"']);
  const two =
    "Error: config missing\n    at main (/x/a.js:1:1)\nwhile handling it:\nRangeError: retry budget 3 exceeded\n";
  assert.deepEqual(errorLines(two), ["Error: config missing", "RangeError: retry budget 3 exceeded"]);
});

test("issue 13.4: without an error line the last meaningful lines are kept, and an empty tail gives none", () => {
  assert.deepEqual(errorLines("one\ntwo\nthree\nfour\n}\n\nNode.js v20.1.0\n"), ["two", "three", "four"]);
  assert.deepEqual(errorLines(""), []);
  assert.deepEqual(errorLines("boot failed\n", 0), []);
});
