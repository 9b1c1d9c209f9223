// The conformance suite (suite.ts) against the python implementation (implementations.ts).
import { conformanceSuite } from "./suite.js";

conformanceSuite("python");
