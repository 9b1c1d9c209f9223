// The conformance suite (suite.ts) against the typescript implementation (implementations.ts).
import { conformanceSuite } from "./suite.js";

conformanceSuite("typescript");
