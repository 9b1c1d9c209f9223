// The pi corpus in the node runtime (pi-corpus-cases.ts): every shipped pi example, each in a
// Node process of its own, must load and register what pi registers, including those QuickJS
// refuses for a Node module. Prints `pi corpus: node M/72 hold`.
import { corpusTests } from "./pi-corpus-cases.js";

/** The count reached when this test was written: a regression below it fails. */
await corpusTests("node", { floor: 67, batch: 12 });
