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
      "per-call CPU on both sides. With 64 in flight (process.cpuUsage and /proc, 2026-12-02) the host spends " +
      "6.6-7.0 us per small call and the extension 5.9-6.3, raw's parent and child about 4 each; one call at a " +
      "time both sides pay more per call (about 14 us host, 13 extension, 9 for each raw side: the wake-ups and " +
      "syscalls of an unbatched call) and in the shared placement one core runs both. On this machine issue 19 " +
      "took the host from 12.8 to 7 us per call in a day (29 on the AMD machine where it began): no object spread " +
      "and no Map churned per call, both of which made young garbage survive; the text-only result proved on a " +
      "short way; the context encoded once; no closures per request; and the extension from 36 (AMD) to 6 " +
      "(synchronous handlers answered without a promise; envelope names found in one pass). What is left is " +
      "spread thin: JSON.parse and JSON.stringify of each frame, the envelope checks (closed members, duplicate " +
      "names and id spelling, FRAME-01), the argument and result validation (CALL-12..23), the slot, deadline and " +
      "cancellation state of each request and three promise layers; garbage collection is about a tenth of the " +
      "host's busy time at 5.5 KB allocated per call. One call at a time on the AMD machine (/proc, 2026-12-02 " +
      "evening): host 29-31 us of CPU against raw's parent 25, extension 29.5-31 against raw's child 24, most of " +
      "both in the kernel; the JavaScript a profile sees is the same for both parents (12.5 us) and 12 against " +
      "8.4 us for the children, the extension's extra being JSON.parse of a 400-byte request that carries its " +
      "execution context (CALL-01: 1.4 us; raw's is 100 bytes), the response's encoding and the checks. Running " +
      "handlers outside AsyncLocalStorage and writing a tick's first frame uncorked were both tried and measured " +
      "within noise. In the shared placement the figure also swings from round to round while raw's does not: in " +
      "the full run of 2026-12-03 06:56 octet's shared p50 was 81.7, 47.8, 51.7 and 55.2 us in its four rounds " +
      "against raw's 36.1-36.8 (1.48x as the median ratio; 1.27-1.63x over the last six full runs, while split " +
      "stayed at 1.20-1.30x): in a rerun of 8 shared rounds both slowed together in three (raw 35.4-35.9 -> " +
      "50.9-55.6 us, octet 45.9-48.0 -> 72.2-86.7): the VM's noise, which octet's larger CPU per call amplifies " +
      "when one core runs both processes.",
  },
  {
    scenario: "latency",
    metric: "p99_us",
    kind: "ratio",
    max: 2,
    why:
      "the same per-call CPU as p50, plus garbage collection pauses, which land in the tail; in the shared " +
      "placement host and extension also queue behind each other's collections. The tail needs a long warm-up " +
      "(5,000 calls): after 2,000 it still paid JIT tiering.",
  },
  {
    scenario: "throughput",
    metric: "calls_per_s",
    kind: "ratio",
    min: 0.6,
    why:
      "CPU per call on both sides (see p50: host 6.6-7.0 us, extension 5.9-6.3, against about 4 us for each raw " +
      "side). In the split placement the two processes also take turns part of the time: a tick's frames " +
      "leave corked, in writes of up to 32 (flushing every 32 took small calls from 90-93k to 111-114k per " +
      "second; no cork at all is faster split but slower shared, where every write is a wake-up). Writes stay " +
      "one frame per stream.write: joining them saved 0.14 us per frame and would break the writer's " +
      "one-frame-per-write contract.",
  },
  {
    scenario: "large-result",
    metric: "calls_per_s",
    kind: "ratio",
    min: 0.85,
    why:
      "octet checks what raw believes: per 512 KiB result the host spends 1.70-1.80 ms of CPU against raw's " +
      "1.50-1.67 (2026-12-02). Its extra work is the envelope name search over the whole text (FRAME-01: 90 us, " +
      "one regular-expression pass), the CR scan (FRAME-02: Buffer's memchr, 5 us), the ASCII check before the " +
      "latin1 read (FRAME-10: 9 us; a non-ASCII line takes the fatal UTF-8 decoder, 500 us), the result's " +
      "validation and the frame bound on the extension's side; most of the rest, on both sides, is collecting " +
      "the 512 KiB strings. Issue 19 took this from 0.68-0.72x to 0.77-0.83x over the last day's runs.",
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
      "the PID-namespace containment, and noise: on 2026-12-03 (AMD machine, 9 rounds each) octet measured 1.19x " +
      "split and 1.18x shared with it and 1.09x / 1.12x with OCTET_CONTAINMENT=process-group, and the full runs " +
      "of the last two days put it at 1.18-1.29x. The launchers (setpriv --pdeathsig, unshare with a user and PID " +
      "namespace and a /proc mount) add 5-8 ms before node's first instruction; they are what makes an " +
      "extension's whole process tree die with it and with the host (ENV-09, SHUT-05: a process group alone can " +
      "be left by setsid or a double fork), so the figure that counts against raw is the contained one. The rest, " +
      "timed on the AMD machine (node's own start is about 85-95 ms there for both): the extension imports the " +
      "SDK, about 20-27 ms against readline's 1 (@octet/protocol's 220 KB bundle about 11 ms to load, compile and " +
      "run its top level, the SDK's own about 8, and Node's first resolution of a package through an exports map, " +
      "3-5 ms; node:crypto, node:tty and node:fs are loaded at first use since issue 19; a V8 code cache measured " +
      "no gain, see the import-time why); the host takes about 14 ms from its start to the spawn (its constructor " +
      "2 ms, discovery 5 with the async fs calls of first-run code, the manifest 0.7, the generation and scratch " +
      "directory 3.5); initialize and the first call run code for the first time on both sides (about 8 ms). The " +
      "separate containment trial that ran before the first launch (8-13 ms) is gone: the first launch is its own " +
      "trial.",
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
      "expires). At 7-16 ms for raw the figure is a few scheduler quanta. Issue 19 took the error stacks out " +
      "of the cancellation path (a fifth of the host's CPU in the storm): 1.92-2.51x -> 1.61-1.91x.",
  },
  {
    scenario: "peak-rss",
    metric: "host_mib",
    kind: "ratio",
    max: 1.2,
    why:
      "not retained memory: heapUsed after a full collection stays at 6-8 MiB over a run. The host's library is " +
      "about 4 MiB more resident than raw's after import (47 against 43 MiB) and its start leaves 2-3 MiB more " +
      "old space; the rest is V8's young generation, which grows while objects survive scavenges: the state of " +
      "the 64 calls in flight, what the wire asks the host to keep per request (its deadline, its cancellation by " +
      "id, its slot under the negotiated limit, its pending answer), (2.2-2.4 KB each since the host stopped " +
      "holding an async frame and the params per call, 3.4 KB before) is live at each scavenge, so over the " +
      "benchmark's 18,000 throughput calls the new space grows to 8 MB (16 MB before; raw's 4 MB); staying at " +
      "raw's size would take about a fifth of that state per call. Run with --max-semi-space-size=2 the host " +
      "peaked lower still but 512 KiB results slowed by 10-20%, so no flag is recommended. Issue 19 took this " +
      "from 1.83x to 1.18-1.21x (the last runs on both machines).",
  },
  {
    // Issue 7: the Python SDK against the raw Python floor (its baseline, see run.mjs).
    candidate: "py-sdk",
    scenario: "latency",
    metric: "p50_us",
    kind: "ratio",
    max: 1.3,
    why:
      "the octet host's own checks leave the Python SDK almost nothing. Measured on the AMD machine (2026-12-03, " +
      "split, 10 rounds): py-sdk p50 55.2-56.1 us against raw-py's 37.2; octet with the TS SDK 45.2 us against " +
      "raw's 37.0 in the same run (1.22x), so the host's own per-call work (closed envelopes, FRAME-01/02/09/10, " +
      "CALL-01 contexts, result validation, deadlines and cancellation state) takes about 8 us of wall time that " +
      "raw-py's parent does not, and 1.3x (48.4 us) would leave the Python SDK about 3 us over raw-py's " +
      "json.loads and json.dumps. Its frame path alone, driven in process over the real decoder and writer (17.2 " +
      "us per tools/call against 6.2 for raw-py's loads and dumps of the same frame), spends more than that on " +
      "what the wire requires: decoding with the duplicate-member check (FRAME-01: 3.8 against 2.8 us for " +
      "json.loads), the closed envelope and id rules (0.5), tool/call params and context (CALL-01/02: 0.55), the " +
      "result mapping (0.2), the encoding with the frame bound before any write (FRAME-09: 2.3), the slot under " +
      "the negotiated limit (PY-04) and the request's scope and active-table entry for cancellation by id (0.5); " +
      "the rest is about 140 Python calls per frame through those layers (no single one above 0.6 us). The " +
      "process adds the asyncio loop, which lets async handlers, worker threads and cancellation share one " +
      "connection: each wake-up goes through epoll and the loop's run where raw-py blocks in read() (a minimal " +
      "add_reader child doing only json loads and dumps spends 25.5-26 us of CPU per call against raw-py's 20.5). " +
      "The tools are inline=True (they return at once); an undeclared def adds one thread handoff.",
  },
  {
    // Issue 19: an extension in the QuickJS sandbox (a worker thread of the host) against raw.
    candidate: "quickjs",
    scenario: "latency",
    metric: "p50_us",
    kind: "ratio",
    max: 2,
    why:
      "interpretation, which is what the sandbox is (QJS-14..18: its own thread, runtime and context, 64 MiB, a " +
      "watchdog, no host globals, bounded frames), against raw's JIT-compiled child. A call costs 62-64 us of CPU " +
      "over both threads (process.cpuUsage, 64 in flight, 2026-12-03, pinned to one CPU), about 20 of them on the " +
      "host thread (its CPU profile) and the rest on the worker, where the wasm interpreter dominates and " +
      "quickjs-emscripten's per-entry JavaScript (scopes, argument arrays, string copies, the generator that " +
      "wraps each host-function call) takes about 9: entering the VM with the frame as a new string (2.7 us), " +
      "QuickJS's JSON.parse of the invoke frame (6.2 us for ~400 bytes with its context; since issue 19 the " +
      "context goes only when it changed), the prelude's dispatch and async apply, then its jobs: the awaited " +
      "result, JSON.stringify (4 us) and the __octet_host.send crossing (3.5 us); those unit costs were timed in " +
      "a bare QuickJS context, where creating a closure costs about 0.55 us, so the prelude now makes a ctx's " +
      "twenty methods on first read (69.3-72.0 -> 64.5-66.7 us per call) and a signal's state on its first " +
      "listener (-> 62.3-63.9). Each frame is its own VM entry with its own budget and watchdog (QJS-16), send " +
      "checks size and rate at the VM boundary (QJS-18), and the host thread checks every rpi frame (the worker " +
      "is untrusted, RPI-35/37). The host thread's in-process bridge no longer parses octet JSON-RPC text: since " +
      "2026-12-03 the host and the bridge hand each other messages as objects, each still encoded by its sender " +
      "for the frame bound (FRAME-09) but parsed by nobody (75.4-76.1 -> 71.1-73.5 us per call); what is left " +
      "there is that encoding, the rpi frames to and from the worker, postMessage and collection. One call at a " +
      "time, as p50 measures, costs more: 110-115 us of CPU per call pinned (2026-12-03, 10,000 calls after 5,000 " +
      "of warm-up, wall time equal to CPU time), of which about 33 us is the round trip between the host thread " +
      "and the extension's own thread that QJS-14 asks for: a 400-byte message posted to a worker and back " +
      "measured 32-33 us on one CPU through MessagePorts, 33-34 through a SharedArrayBuffer with " +
      "Atomics.waitAsync on both sides, 26.4 with a doorbell (Atomics.wait and receiveMessageOnPort in the " +
      "worker: its event loop's turn saved, at the price of holding the worker off its timers), and 17.9 for a " +
      "bare Atomics ping-pong without the message; the rest is the interpretation above, paid once per call " +
      "instead of shared with the batch.",
  },
  {
    candidate: "quickjs",
    scenario: "throughput",
    metric: "calls_per_s",
    kind: "ratio",
    min: 0.4,
    why:
      "the sandbox's one thread per extension (QJS-14) runs the 64 calls one at a time in the interpreter and the " +
      "host thread shares its CPU, so throughput is the inverse of the call's whole CPU (62-64 us, see p50: about " +
      "20 on the host thread, the rest on the worker), while raw's child answers in a few us of JIT code. Issue " +
      "19 took it from 6,965 to about 15,700 calls/s pinned (among other things the request tables no longer " +
      "churn a Map, whose old tables kept 1.8 MB alive through every scavenge of the host thread).",
  },
  {
    candidate: "quickjs",
    scenario: "cold-start",
    metric: "first_result_ms",
    kind: "ratio",
    max: 1.5,
    why:
      "the sandbox's start, all of it on one CPU. Pinned as the benchmark runs it, a QuickJS cold start is about " +
      "300 ms of CPU (process.cpuUsage, 2026-12-03; unpinned the same start takes 150 ms of wall time on two " +
      "cores). In order (unpinned, 2026-12-02): the host's start up to the launch 16 ms, the wasm compile 7-10 ms " +
      "(lazy: V8 compiles each function on its first call; compiling all of them eagerly takes 41 ms), the worker " +
      "thread's bootstrap 22 ms, its one bundled module 5, the emscripten module with its 64 MiB Memory 14 ms, " +
      "runtime, context and host object 6 ms, the 88 KB prelude 25-35 ms (V8 compiles QuickJS's wasm functions on " +
      "their first call: the same prelude takes 7 ms once they are compiled; minifying it measured no gain), then " +
      "the rpi handshake and octet's initialize 15-20 ms. V8's wasm tiering is not the cost: with " +
      "--no-wasm-tier-up the pinned cold start measured 3.18x, without dynamic tiering 3.63x, with eager " +
      "compilation 2.87x, against 2.91x as shipped. Each extension gets its own worker, runtime and memory (the " +
      "isolation the sandbox is for: its own thread, runtime and context, QJS-14; the 64 MiB limit, QJS-15; the " +
      "watchdog, QJS-16), and the wasm module is compiled once per host and shared; what would remain is a worker " +
      "and runtime started before they are asked for, which on one CPU moves the cost rather than removing it.",
  },
  {
    scenario: "import-time",
    metric: "import_ms",
    kind: "absolute",
    max: 30,
    why:
      "an absolute figure, so it moves with the machine: 23.8 ms on the Intel machine, 40-45 ms on the AMD one, " +
      "where raw's own first import (node:child_process) takes 6-7.4 ms against 3.7. There: the protocol bundle " +
      "about 11 ms (compiling 220 KB is most of it, its top level 1.5-3), the host bundle about 12, Node's " +
      "modules it imports (crypto 5 ms, child_process 4.3, node:fs's ESM facade 2.7) and the first resolution of " +
      'a package name through an "exports" map (import.meta.resolve of @octet/protocol 2.8 ms, of a second ' +
      "package 1.8-5 ms, against 0.2 for a relative path: Node's resolver runs its code for the first time; every " +
      "package with an exports map pays it, and raw imports a builtin). Loading crypto at first use only moves " +
      "its cost into the host's start (randomUUID makes the session and instance ids of the owner triple), which " +
      "the cold start pays. A V8 code cache was built and measured on 2026-12-03 (each bundle as a CommonJS body " +
      "run through vm.Script with cachedData made on first load, keyed by the body's inode, size, mtime and " +
      "ctime): it cut the protocol's compile from 8.1 to 2.3 ms, yet the import as a whole did not get faster " +
      "(alternated, pinned, in the checkout: the host 37.5 -> 38.5 ms by path and 44 -> 45 by package name, the " +
      "SDK 22 -> 28.5 ms), because the vm route loads Node's CommonJS and vm internals (about 5 ms), allocates " +
      "the source twice and the cached data (about 4 ms more garbage collection) and reads esbuild's CommonJS " +
      "exports through getters; it was not kept. What remains is compiling the validators and services the wire " +
      "reference asks for (both bundles are one file each already; moving the rarely used parts, the extension " +
      "checker and the media signatures of artifacts, about 50 of the host's 374 KB, into chunks loaded on first " +
      "use would save about 1.6 ms, in proportion to the compile) and Node's own modules.",
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
