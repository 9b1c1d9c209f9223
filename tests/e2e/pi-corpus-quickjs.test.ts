// The pi corpus in QuickJS (pi-corpus-cases.ts): every shipped pi example loads as pi loads it,
// or is refused cleanly where the sandbox lacks Node. Prints `pi corpus: quickjs N/72 hold`.
import { corpusTests } from "./pi-corpus-cases.js";

/** The count reached when this test was written: a regression below it fails. */
await corpusTests("quickjs", { floor: 69, batch: 12 });
