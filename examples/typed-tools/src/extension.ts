/**
 * typed-tools: `simulate` takes typed arguments (defaults filled in, input checked before the
 * handler runs) and returns a typed value or an error with diagnostics; `broken` returns output
 * that does not match its schema, which the SDK turns into a tool error instead of a success.
 */
import { Type } from "@sinclair/typebox";
import { Extension, TypedResult } from "@octet/extension";

const ext = new Extension({ apiVersion: "0.4" });

const Run = Type.Object({
  circuit: Type.String({ description: "The circuit to simulate" }),
  steps: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  probes: Type.Array(Type.String()),
  mode: Type.Union([Type.Literal("dc"), Type.Literal("transient")], { default: "dc" }),
  note: Type.Union([Type.String(), Type.Null()], { default: null }),
});
const Voltages = Type.Object({
  probes: Type.Array(Type.String()),
  volts: Type.Array(Type.Number()),
  steps: Type.Integer(),
});

ext.typedTool(
  { name: "simulate", description: "Simulate a circuit and read its probes", input: Run, output: Voltages },
  (run) => {
    ext.cancellation.throwIfCancelled();
    if (run.circuit === "diverge") {
      return new TypedResult(null, "Simulation failed.", {
        isError: true,
        diagnostics: [
          {
            severity: "error",
            code: "solver.nonconvergent",
            message: "Operating point did not converge.",
            primary: { source: { kind: "workspace", path: "circuits/diverge.cir" }, span: { start: 0, end: 12 } },
          },
        ],
      });
    }
    return new TypedResult(
      { probes: run.probes, volts: run.probes.map((_, i) => 0.5 * (i + 1)), steps: run.steps },
      `Simulated ${run.circuit} (${run.mode}) for ${run.steps} steps.`,
    );
  },
);

ext.typedTool(
  {
    name: "broken",
    description: "Returns output that does not match its schema",
    input: Type.Object({}),
    output: Type.Object({ count: Type.Integer() }),
    summary: (v) => `${v.count} items`,
  },
  () => ({ count: 2.5 }),
);

ext.run();
