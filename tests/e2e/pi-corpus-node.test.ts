// The pi corpus in the node runtime (pi-corpus-cases.ts): the shipped examples that need Node
// (they import a Node builtin or read `process`, which QuickJS refuses) must load and register
// what pi registers. Each node case is a process that loads pi's real packages (about 2 s of CPU),
// so by default only these run; OCTET_PI_CORPUS_FULL=1 runs cases 1-36 and =2 cases 37-72 of all
// 72 in the node runtime (the figures in docs/pi-corpus.md). Prints `pi corpus: node ... hold`.
import { corpusTests } from "./pi-corpus-cases.js";

const half = process.env["OCTET_PI_CORPUS_FULL"];
/** The counts reached when this test was written: a regression below them fails. */
await corpusTests(
  "node",
  half === "1" || half === "2"
    ? { floor: half === "1" ? 34 : 35, batch: 12, part: { index: Number(half), of: 2 } }
    : { floor: 19, batch: 10, only: (c) => c.needsNode, onlyWhat: "the cases that need Node" },
);
