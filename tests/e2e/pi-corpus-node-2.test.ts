// The pi corpus in the node runtime, second half (see pi-corpus-node.test.ts). Prints
// `pi corpus: node, cases 37-72 of 72, M/36 hold`.
import { corpusTests } from "./pi-corpus-cases.js";

/** The count reached when this test was written: a regression below it fails. */
await corpusTests("node", { floor: 35, batch: 12, part: { index: 2, of: 2 } });
