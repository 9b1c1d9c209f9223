// The pi corpus in the node runtime (pi-corpus-cases.ts), first half (the second is
// pi-corpus-node-2.test.ts: each case is a Node process that loads pi's real packages, too much
// for one file on a busy machine): every shipped pi example must load and register what pi
// registers, including those QuickJS refuses for a Node module. Prints
// `pi corpus: node, cases 1-36 of 72, M/36 hold`.
import { corpusTests } from "./pi-corpus-cases.js";

/** The count reached when this test was written: a regression below it fails. */
await corpusTests("node", { floor: 34, batch: 12, part: { index: 1, of: 2 } });
