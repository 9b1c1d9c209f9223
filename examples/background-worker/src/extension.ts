/**
 * background-worker: a tool that starts a job and returns at once, while the job keeps running
 * in the background and publishes the extension's state with ext.presentation.update().
 *
 * Ownership, as the spec wants it: the snapshot sent while start_job runs is correlated to that
 * call (parent_request_id); the job's later snapshots, sent after the call returned, carry the
 * host-issued resource_owner the call's context held, so the host can check it was issued to
 * this process. The /jobs command is what the snapshot's actions route to: a snapshot never runs
 * anything itself.
 */
import { Extension, type PresentationInput } from "@octet/extension";

interface Job {
  id: string;
  name: string;
  steps: number;
  done: number;
  state: "running" | "succeeded" | "cancelled";
  startedAt: number;
  finishedAt?: number;
  timer?: ReturnType<typeof setTimeout>;
}

interface Owner {
  session_id: string;
  extension_instance_id: string;
  process_generation: number;
}

const ext = new Extension({ apiVersion: "0.2", maxConcurrentRequests: 4 });
const jobs = new Map<string, Job>();
let nextJob = 1;
let revision = 0;
/** The owner of the last start_job call: background snapshots are published for it. */
let owner: Owner | undefined;
let selected: string | undefined;

function snapshot(): PresentationInput {
  const list = [...jobs.values()];
  const running = list.filter((j) => j.state === "running").length;
  const focus = selected !== undefined ? jobs.get(selected) : undefined;
  return {
    revision: revision++,
    status: {
      state: running > 0 ? "running" : list.length > 0 ? "active" : "empty",
      label: `${running} running, ${list.length - running} finished`,
    },
    activities: list.map((j) => ({
      id: j.id,
      kind: "job",
      state: j.state,
      summary: `${j.name}: step ${j.done} of ${j.steps}`,
      provenance: "background timer",
      started_at_ms: j.startedAt,
      ...(j.finishedAt !== undefined ? { finished_at_ms: j.finishedAt } : {}),
      metrics: {
        tool_calls: j.done,
        input_tokens: j.done * 100,
        output_tokens: j.done * 10,
        reasoning_tokens: j.done * 2,
      },
    })),
    collection: {
      kind: "tree",
      title: "Jobs",
      nodes: list.flatMap((j) => [
        {
          id: j.id,
          state: j.state,
          label: j.name,
          secondary: `${j.done}/${j.steps}`,
          action_ids: j.state === "running" ? [`cancel:${j.id}`] : [],
        },
        ...Array.from({ length: Math.min(j.done, 8) }, (_, i) => ({
          id: `${j.id}/step${i + 1}`,
          parent_id: j.id,
          state: "succeeded" as const,
          label: `step ${i + 1}`,
        })),
      ]),
      ...(focus
        ? {
            selected_node_id: focus.id,
            detail: {
              node_id: focus.id,
              title: focus.name,
              body: `Job ${focus.id} (${focus.name})\nstate: ${focus.state}\nsteps: ${focus.done} of ${focus.steps}`,
            },
          }
        : {}),
    },
    actions: [
      ...list
        .filter((j) => j.state === "running")
        .map((j) => ({
          id: `cancel:${j.id}`,
          label: `Cancel ${j.name}`,
          command: "jobs",
          arguments: ["cancel", j.id],
          destructive: true,
        })),
      { id: "clear", label: "Clear finished jobs", command: "jobs", arguments: ["clear"] },
    ],
  };
}

/** Background publishing: as the owner the host issued, or process-scoped when there is none yet. */
function publish(): void {
  ext.presentation.update(snapshot(), owner ? { owner } : { scope: "process" });
}

function step(job: Job, stepMs: number): void {
  job.timer = setTimeout(() => {
    if (job.state !== "running") return;
    job.done++;
    if (job.done >= job.steps) {
      job.state = "succeeded";
      job.finishedAt = Date.now();
    } else step(job, stepMs);
    publish();
  }, stepMs);
}

ext.tool(
  {
    name: "start_job",
    description: "Start a background job of some steps; its progress is shown in the extension's presentation",
    parameters: {
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, maxLength: 64, description: "A name for the job" },
        steps: { type: "integer", minimum: 1, maximum: 100, description: "How many steps (default 5)" },
        step_ms: { type: "integer", minimum: 1, maximum: 60000, description: "Milliseconds per step (default 500)" },
      },
      required: ["name"],
      additionalProperties: false,
    },
  },
  async (args, ctx) => {
    const id = `job${nextJob++}`;
    // The SDK does not check arguments against the schema (typed tools will): default what is missing.
    const name = typeof args["name"] === "string" && args["name"] !== "" ? args["name"] : id;
    const steps = Number.isInteger(args["steps"]) && (args["steps"] as number) > 0 ? (args["steps"] as number) : 5;
    const job: Job = { id, name, steps, done: 0, state: "running", startedAt: Date.now() };
    jobs.set(job.id, job);
    selected = job.id;
    owner = ctx.context?.resource_owner;
    // Inside the call: correlated to it, and the host derives the owner.
    ext.presentation.update(snapshot());
    step(job, Number(args["step_ms"] ?? 500));
    return `started ${job.id} (${job.name}, ${job.steps} steps)`;
  },
);

ext.command(
  {
    name: "jobs",
    description: "Manage background jobs: cancel ID, clear, select ID",
    usage: "/jobs cancel ID | clear | select ID",
  },
  async (args) => {
    const [verb, id] = args;
    if (verb === "cancel" && id !== undefined) {
      const job = jobs.get(id);
      if (!job || job.state !== "running") return `no running job ${id}`;
      clearTimeout(job.timer);
      job.state = "cancelled";
      job.finishedAt = Date.now();
      publish();
      return `cancelled ${id}`;
    }
    if (verb === "clear") {
      let n = 0;
      for (const [key, job] of jobs) if (job.state !== "running") jobs.delete(key), n++;
      if (selected !== undefined && !jobs.has(selected)) selected = undefined;
      publish();
      return `cleared ${n} finished job${n === 1 ? "" : "s"}`;
    }
    if (verb === "select" && id !== undefined && jobs.has(id)) {
      selected = id;
      publish();
      return `selected ${id}`;
    }
    return "usage: /jobs cancel ID | clear | select ID";
  },
);

void ext.run();
