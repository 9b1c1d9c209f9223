// The targets of issues 4 and 7, checked against a run's summaries and written into its results file.
// A ratio target is read from the median of octet's per-round ratios to the raw floor (paired per
// round) in each placement; the import-time target is absolute (octet's median, in ms).
//
// `why` is what profiling found for a target octet did not meet when this file was last revised
// (see benchmarks/README.md, "Where the time goes"); it is printed and stored only for a miss,
// so a target that starts being met stops carrying an old explanation.

export const TARGETS = [
  {
    scenario: "latency",
    metric: "p50_us",
    kind: "ratio",
    max: 1.3,
    why:
      "per-call CPU, not wake-ups: in the shared placement octet's p50 is about 2x raw's, i.e. host and extension " +
      "together spend about twice raw's CPU per call. Spread over many small costs (cpu profiles of both sides): " +
      "a larger request frame (every call carries its execution context and resource owner), envelope, params and " +
      "result validation on both sides, promise chains per call, and in the SDK AsyncLocalStorage (the ambient " +
      "ext.cancellation / ext.progress), whose promise hooks cost about 15% of the extension's busy time. No " +
      "single hot spot is left above about 10%.",
  },
  {
    scenario: "latency",
    metric: "p99_us",
    kind: "ratio",
    max: 2,
    why:
      "the same per-call CPU as p50, plus garbage collection pauses, which land in the tail (GC is 10-25% of " +
      "either side's busy time: the per-call objects above); in the shared placement host and extension also " +
      "queue behind each other's GC.",
  },
  {
    scenario: "throughput",
    metric: "calls_per_s",
    kind: "ratio",
    min: 0.6,
    why:
      "CPU per call (see p50): with 64 in flight both processes are CPU-bound in the shared placement, so " +
      "throughput is the inverse of the summed CPU per call; in the split one each side idles 40-50% waiting for " +
      "the other's batch. Batching writes per tick (cork until the next tick) is kept: it measured +28% shared " +
      "and -7% split.",
  },
  {
    scenario: "large-result",
    metric: "calls_per_s",
    kind: "ratio",
    min: 0.85,
    why:
      "an ASCII fast path for the UTF-8 byte count (the JS loop was 43% of the extension's busy time on 512 KiB " +
      "frames) took this from 0.58x to about 0.7x, level with the MCP SDK. What is left is not one hot spot: host " +
      "and extension each idle about 70% waiting on the pipe and on each other, the extension's time goes to " +
      "converting the frame to UTF-8 for the pipe and to collecting the large strings (as raw's does), and octet " +
      "adds its size check and a fatal UTF-8 decode on the host. Reading each frame into a reused buffer instead " +
      "of two fresh copies measured no change, so it was not kept.",
  },
  {
    scenario: "large-result",
    metric: "mib_per_s",
    kind: "ratio",
    min: 0.85,
    why: "the same as calls/s: one result size.",
  },
  {
    scenario: "cold-start",
    metric: "first_result_ms",
    kind: "ratio",
    max: 1.2,
    why:
      "the SDK's module graph (protocol validators included) loads in the extension before its first frame, and " +
      "the host reads and validates the manifest, builds the environment and a scratch directory, and negotiates " +
      "initialize before the first call; raw starts answering as soon as node is up.",
  },
  {
    scenario: "cancel-storm",
    metric: "settled_ms",
    kind: "ratio",
    max: 2,
    why:
      "not the same work: the raw parent settles a caller at its abort without waiting for the child, while " +
      "octet's host admits at most the negotiated 64 requests at once, so calls past 64 wait for a slot; each " +
      "settled caller's slot is released only when the extension answers the cancellation (or its 2 s grace " +
      "expires).",
  },
  {
    scenario: "peak-rss",
    metric: "host_mib",
    kind: "ratio",
    max: 1.2,
    why:
      "not retained memory: over 155,000 calls the host's heapUsed stays about 10 MiB (no leak), but V8 grows the " +
      "heap (heapTotal 10 -> ~47 MiB) in answer to octet's allocation rate per call, which raw's bare loop does " +
      "not provoke. The remedy is the same as for throughput: fewer objects per call.",
  },
  {
    // Issue 7: the Python SDK against the raw Python floor (its baseline, see run.mjs).
    candidate: "py-sdk",
    scenario: "latency",
    metric: "p50_us",
    kind: "ratio",
    max: 1.3,
    why:
      "measured, not yet profiled: a plain def handler runs on a worker thread, about 60 us of the gap (the same " +
      "tool as an async def measured 239 vs 299 us p50); the rest is the SDK's per-frame work in pure Python " +
      "(strict UTF-8 decoding and envelope validation, the writer thread, asyncio scheduling) plus the host's own " +
      "per-call cost, about 50 us as with the TS SDK.",
  },
  {
    scenario: "import-time",
    metric: "import_ms",
    kind: "absolute",
    max: 30,
    why:
      "the module graph: each package is bundled into one file (scripts/bundle.mjs; 60 separate modules took " +
      "about 52 ms) and Ajv loads on first use; what is left is compiling the protocol validators and smol-toml.",
  },
];

/**
 * One verdict per target and placement where octet has a figure: value, limit, met, and for a
 * miss how far off it is (as a fraction of the limit) and why.
 */
export function checkTargets(blocks, candidate = "octet") {
  const out = [];
  for (const t of TARGETS) {
    for (const block of blocks.filter((b) => b.scenario === t.scenario)) {
      const s = block.summary.find((x) => x.candidate === (t.candidate ?? candidate) && x.metric === t.metric);
      if (!s) continue;
      const value = t.kind === "ratio" ? s.ratio_median : s.median;
      if (!Number.isFinite(value)) continue;
      const limit = t.max ?? t.min;
      const unit = t.kind === "ratio" ? `x ${s.baseline ?? "raw"}` : " ms";
      const met = t.max !== undefined ? value <= t.max : value >= t.min;
      // How far off, relative to the limit: +0.25 means 25% over a maximum or 25% short of a minimum.
      const off = met ? 0 : t.max !== undefined ? value / t.max - 1 : 1 - value / t.min;
      out.push({
        candidate: t.candidate ?? candidate,
        scenario: t.scenario,
        metric: t.metric,
        placement: block.placement,
        kind: t.kind,
        target: `${t.max !== undefined ? "<=" : ">="} ${limit}${unit}`,
        value,
        met,
        off_by: off,
        ...(met ? {} : { why: t.why }),
      });
    }
  }
  return out;
}
