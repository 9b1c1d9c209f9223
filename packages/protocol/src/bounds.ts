/**
 * Every numeric limit of the octet wire, named once. Other modules import from here; the Python
 * SDK's copy is generated from this file. Units are in the names or the comments: KiB = 1024 bytes,
 * MiB = 1,048,576 bytes, and "bytes" means UTF-8 encoded bytes.
 */

/** One JSONL frame: the JSON text of one message, not counting its terminating LF (FRAME-09). */
export const MAX_FRAME_BYTES = 1_048_576;

/** Manifest text read by product discovery through the resource resolver (MAN-08). */
export const MAX_MANIFEST_BYTES = 262_144;

/** Commands one initialize response may define (INIT-10). */
export const MAX_COMMANDS = 256;
/** Tools one initialize response may define (mirrors the 256 catalog bound of tools/register). */
export const MAX_TOOLS = 256;
/** Tool name length in bytes; the grammar is ^[A-Za-z0-9_-]{1,128}$ (TDEF-08). */
export const MAX_TOOL_NAME_BYTES = 128;
/** Schema nesting for parameters and output_schema (TDEF-05, TDEF-07). */
export const MAX_SCHEMA_DEPTH = 32;
/** Property names inside schemas (TDEF-05). */
export const MAX_SCHEMA_PROPERTY_NAME_BYTES = 256;

/** Extension-originated request id strings (REV-02). */
export const MAX_CHILD_ID_BYTES = 256;
/** Child requests outstanding at once per generation (REV-04). */
export const MAX_OUTSTANDING_CHILD_REQUESTS = 128;
/** Distinct child request ids per generation (REV-05). */
export const MAX_CHILD_IDS_PER_GENERATION = 65_536;

/** Largest integer JSON can carry exactly (2^53 - 1); ids above it are refused, never aliased. */
export const MAX_SAFE_JSON_INTEGER = Number.MAX_SAFE_INTEGER;

/** Content parts in one API 0.2+ tool result (CALL-15). */
export const MAX_CONTENT_PARTS = 256;
/** structured_content of one result (CALL-21). */
export const MAX_STRUCTURED_CONTENT_BYTES = 262_144;
/** metadata of one result (CALL-21). */
export const MAX_METADATA_BYTES = 65_536;
/** Nesting of structured_content and metadata (CALL-21). */
export const MAX_VALUE_DEPTH = 32;
/** Nodes of structured_content and metadata (CALL-21). */
export const MAX_VALUE_NODES = 16_384;
/** metadata object keys (CALL-21). */
export const MAX_METADATA_KEY_BYTES = 256;

/** Context contribution label, content and count per response (CTX-06). */
export const MAX_CONTEXT_LABEL_BYTES = 256;
export const MAX_CONTEXT_CONTENT_BYTES = 65_536;
export const MAX_CONTEXT_ENTRIES = 32;

/** Notification title and message (NOTIF-03). */
export const MAX_NOTIFICATION_TITLE_BYTES = 256;
export const MAX_NOTIFICATION_MESSAGE_BYTES = 4_096;
/** Notifications accepted per second per generation; excess dropped with one diagnostic (NOTIF-03). */
export const MAX_NOTIFICATIONS_PER_SECOND = 10;

/** One diagnostic event's text (FRAME-05). */
export const MAX_DIAGNOSTIC_BYTES = 4_096;
/** The per-generation ring of retained stderr (FRAME-05). */
export const MAX_STDERR_TAIL_BYTES = 65_536;
/** The bounded "last error" shown in status (FRAME-05, LIFE-02). */
export const MAX_LAST_ERROR_BYTES = 1_024;
/** Bytes of an offending line quoted in a diagnostic. */
export const MAX_QUOTED_LINE_BYTES = 256;

/** Bytes queued on a child's stdin before the host calls it stalled (the child is not reading). */
export const MAX_WRITER_QUEUE_BYTES = 8 * 1_048_576;

/** Per-stage shutdown wait: for the ack, then for the exit (SHUT-03, SHUT-04). */
export const SHUTDOWN_STAGE_TIMEOUT_MS = 2_000;
/** Aggregate deadline of a normal shutdown of every extension (SHUT-06). */
export const SHUTDOWN_AGGREGATE_TIMEOUT_MS = 3_000;
/** Aggregate cap of interactive and signal-coordinated exits (SHUT-07). */
export const SHUTDOWN_FAST_TIMEOUT_MS = 1_400;
/** Wait for the OS to report the exit after SIGKILL to the group. */
export const KILL_REAP_TIMEOUT_MS = 1_000;

/** A session/* or turn/* lifecycle notification not on the wire within this time is dropped (LIFE-10). */
export const LIFECYCLE_DELIVERY_TIMEOUT_MS = 250;

/** A frame begun must end (its LF) within this time, else the stream is stalled (reliability F8). */
export const FRAME_ASSEMBLY_TIMEOUT_MS = 10_000;

/** Restart backoff: full jitter, uniform in [0, min(cap, base * 2^attempt)] (SUP-03). */
export const RESTART_BACKOFF_BASE_MS = 250;
export const RESTART_BACKOFF_CAP_MS = 30_000;
/** Failed restart attempts before the extension is parked (SUP-04). */
export const MAX_RESTART_ATTEMPTS = 8;
/** Continuously ready this long resets the restart budget (SUP-05). */
export const RESTART_BUDGET_RESET_MS = 30_000;

/** initialize deadline (INIT-48). */
export const INITIALIZE_TIMEOUT_MS = 15_000;
/** tool/call and command/execute deadline (CALL-24). */
export const CALL_TIMEOUT_MS = 60_000;
/** hook/run, context/collect, status/collect and tool/render deadline (CALL-24). */
export const COLLECT_TIMEOUT_MS = 10_000;
/** Cooperative cancellation grace before the generation is degraded and terminated (CANCEL). */
export const CANCEL_GRACE_MS = 2_000;

/** Host cap on max_concurrent_requests offered in initialize (INIT-16). */
export const MAX_CONCURRENT_REQUESTS = 64;

/** Segments of one tool/render result, and bytes of the whole rendered text. */
export const MAX_RENDER_SEGMENTS = 1_024;
export const MAX_RENDER_TEXT_BYTES = 65_536;
/** Text of one status contribution. */
export const MAX_STATUS_TEXT_BYTES = 4_096;
/** Text of one command result. */
export const MAX_COMMAND_TEXT_BYTES = 262_144;
/** Descriptions and usage strings of tools and commands. */
export const MAX_DESCRIPTION_BYTES = 16_384;

/** Extension name in extension.toml; the grammar is ^[a-z0-9][a-z0-9_-]{0,63}$ (MAN-03). */
export const MAX_EXTENSION_NAME_BYTES = 64;
/** Extension version and requires_octet strings in extension.toml (MAN-03). */
export const MAX_MANIFEST_VERSION_BYTES = 64;
/** One [capabilities].secrets name, ASCII only (MAN-13). */
export const MAX_SECRET_NAME_BYTES = 64;
/** Problems reported for one manifest; the rest are summarized in one final error. */
export const MAX_MANIFEST_ERRORS = 32;

/** prompt_guidelines entries of one tool definition (TDEF-10). */
export const MAX_PROMPT_GUIDELINES = 16;
/** One prompt_snippet or prompt_guidelines string (TDEF-10). */
export const MAX_PROMPT_METADATA_BYTES = 1_024;
/** Characters of an offending string quoted in a validation problem, so a message stays short. */
export const MAX_QUOTED_VALUE_CHARS = 64;
/** Names listed in one validation problem (missing or extra catalog names); the rest are counted. */
export const MAX_QUOTED_NAMES = 8;

/**
 * confirmation/request prompt and detail (GAP: the text gives none; the 16 KiB of input/request's
 * prompt, INPUT-03, so a person is never shown an unbounded question).
 */
export const MAX_CONFIRMATION_TEXT_BYTES = 16_384;

/** Accepted output progress is delivered in chunks of at most 8 KiB of data (PROG-07). */
export const PROGRESS_OUTPUT_CHUNK_BYTES = 8_192;

/**
 * The encoded tool catalog: all tool definitions of one initialize response (TDEF-13, GAP
 * default: the aggregate catalog schema budget is never quantified; 1 MiB so it fits one frame).
 * Prompt metadata counts against it (TDEF-12).
 */
export const MAX_TOOL_CATALOG_BYTES = 1_048_576;

/** $/cancelRequest reason, a free-form string (CANCEL-11, GAP default). */
export const MAX_CANCEL_REASON_BYTES = 256;

/** $/progress status message and decoration detail (PROG-10, GAP default). */
export const MAX_PROGRESS_TEXT_BYTES = 4_096;
/** $/progress decoration label (PROG-10, GAP default) and status unit (same short-label bound). */
export const MAX_PROGRESS_LABEL_BYTES = 256;

/** input/request prompt (INPUT-03). */
export const MAX_INPUT_PROMPT_BYTES = 16_384;
/** A non-null input/request answer (INPUT-04); the frame bound applies as well. */
export const MAX_INPUT_VALUE_BYTES = 262_144;

/** menu/collect: items across all levels, nesting levels, and the encoded menu (MENU-07, MENU-10). */
export const MAX_MENU_ITEMS = 256;
export const MAX_MENU_LEVELS = 4;
export const MAX_MENU_BYTES = 262_144;
/** menu/collect deadline; on timeout the host shows the generated menu (MENU-03). */
export const MENU_TIMEOUT_MS = 5_000;
/** Deadline of a person-started menu action, instead of CALL_TIMEOUT_MS (MENU-12). */
export const MENU_ACTION_TIMEOUT_MS = 30 * 60_000;

/** The optional reason of a settled lifecycle event (session, turn or tool; LIFE-07). */
export const MAX_LIFECYCLE_REASON_BYTES = 4_096;

/** Unsolicited context/status contributions accepted per second per generation (GAP: as NOTIF-03). */
export const MAX_CONTRIBUTIONS_PER_SECOND = 10;

/** presentation/update: one snapshot's encoded size, its activities, collection nodes and actions (PRES-17). */
export const MAX_PRESENTATION_BYTES = 262_144;
export const MAX_PRESENTATION_ACTIVITIES = 128;
export const MAX_PRESENTATION_NODES = 256;
export const MAX_PRESENTATION_ACTIONS = 64;
/** Levels of a presentation tree, roots being level 1 (PRES-09, PRES-17). */
export const MAX_PRESENTATION_TREE_LEVELS = 16;
/** References of one activity, node or detail (PRES-17). */
export const MAX_PRESENTATION_REFERENCES = 8;
/** One compact label or id of a snapshot: labels, ids, kinds, titles, commands, arguments, URLs (PRES-18). */
export const MAX_PRESENTATION_LABEL_BYTES = 1_024;
/** The body of a snapshot's collection detail (PRES-18). */
export const MAX_PRESENTATION_DETAIL_BYTES = 65_536;
/** Snapshots one generation emits per one-second window; the excess is coalesced last-wins (PRES-19). */
export const MAX_PRESENTATIONS_PER_SECOND = 32;
/**
 * Decoded bytes of an inline (`data`) artifact/publish; the frame bound applies too (ART-12, ART-13 GAP
 * default: decoded).
 */
export const MAX_ARTIFACT_INLINE_BYTES = 262_144;
/** One artifact, inline or from a scratch file (ART-12). */
export const MAX_ARTIFACT_BYTES = 20 * 1_048_576;
/** Artifact bytes one process generation may hold, and how many artifacts (ART-12). */
export const MAX_GENERATION_ARTIFACT_BYTES = 64 * 1_048_576;
export const MAX_GENERATION_ARTIFACTS = 64;
/** A scratch-relative artifact path: UTF-8 bytes and components (ART-06). */
export const MAX_ARTIFACT_PATH_BYTES = 4_096;
export const MAX_ARTIFACT_PATH_COMPONENTS = 64;
/** An artifact id as the SDK accepts it back from the host (ART-04; GAP default, as child ids). */
export const MAX_ARTIFACT_ID_BYTES = 256;
/** Media one result references, counting a repeated reference each time (CALL-19). */
export const MAX_RESULT_MEDIA_BYTES = 64 * 1_048_576;
/** policy/evaluate intent.operation: a dotted identifier (POL-06, GAP default). */
export const MAX_POLICY_OPERATION_BYTES = 128;
/** policy/evaluate intent.data_classes: entries, and bytes of each (POL-06, GAP default). */
export const MAX_POLICY_DATA_CLASSES = 16;
export const MAX_POLICY_DATA_CLASS_BYTES = 64;
/** policy/evaluate intent.target.origin (POL-06, GAP default: a URL-sized string). */
export const MAX_POLICY_ORIGIN_BYTES = 2_048;
/** policy/evaluate intent.target.label, shown to a person who approves (POL-06, GAP default). */
export const MAX_POLICY_LABEL_BYTES = 256;
/** An approval token: 32 random bytes as lowercase hex (POL-07). */
export const APPROVAL_TOKEN_HEX_CHARS = 64;
/** An approval token is valid for at most five minutes after issuance (POL-10). */
export const APPROVAL_TOKEN_TTL_MS = 300_000;
/**
 * Unconsumed approval tokens one generation holds; the oldest is dropped past it (POL-07, GAP:
 * the text gives none; each needs a person's approval, so this is a memory fence, not a quota).
 */
export const MAX_PENDING_APPROVALS = 64;

/** A secret/get value (SEC-02); the frame bound applies as well. */
export const MAX_SECRET_VALUE_BYTES = 65_536;
/** provider/credentials provider and model ids (SEC-10, GAP default: the 256-byte model ids of W 2.13). */
export const MAX_PROVIDER_ID_BYTES = 256;
/** A provider/credentials credential (SEC-10, GAP default: as a secret value). */
export const MAX_PROVIDER_CREDENTIAL_BYTES = 65_536;

/** compaction_strategy: frames one result may carry (PY-45 GAP default). */
export const MAX_COMPACTION_FRAMES = 16;
/** compaction_strategy: the text payload; the whole request must also fit the frame (PY-45 GAP default). */
export const MAX_COMPACTION_TEXT_BYTES = 524_288;
/** Each process wait for cache_warming_decision advice (PY-51). */
export const CACHE_WARMING_WAIT_MS = 200;
/**
 * Typed tools of the SDKs (PY-18, PY-19): a generated schema (parameters or output_schema, each
 * encoded), a typed value (arguments or output; depth and nodes are MAX_VALUE_DEPTH and
 * MAX_VALUE_NODES), each string in it, and the model-facing summary of a typed result.
 */
export const MAX_TYPED_SCHEMA_BYTES = 65_536;
export const MAX_TYPED_VALUE_BYTES = 262_144;
export const MAX_TYPED_STRING_BYTES = 131_072;
export const MAX_TYPED_SUMMARY_BYTES = 4_096;

/** metadata.octet_diagnostics_v1: diagnostics per result and their encoded size (DIAG-02). */
export const MAX_DIAGNOSTICS = 32;
export const MAX_DIAGNOSTICS_BYTES = 65_536;
/** A diagnostic's code and message (DIAG-06, GAP default). */
export const MAX_DIAGNOSTIC_CODE_BYTES = 128;
export const MAX_DIAGNOSTIC_MESSAGE_BYTES = 4_096;
/**
 * The rest of the profile's records (DIAG-06, GAP: the shared SDK contract gives no individual
 * bounds; these keep one diagnostic well inside the 64 KiB total): related locations and fixes of
 * one diagnostic, edits of one fix, attachments of one diagnostic, a fix title or attachment
 * label, a workspace path, a revision, an edit's replacement text, a blob token and media type.
 */
export const MAX_DIAGNOSTIC_RELATED = 16;
export const MAX_DIAGNOSTIC_FIXES = 8;
export const MAX_DIAGNOSTIC_EDITS = 32;
export const MAX_DIAGNOSTIC_ATTACHMENTS = 8;
export const MAX_DIAGNOSTIC_LABEL_BYTES = 256;
export const MAX_DIAGNOSTIC_PATH_BYTES = 4_096;
export const MAX_DIAGNOSTIC_REVISION_BYTES = 256;
export const MAX_DIAGNOSTIC_EDIT_TEXT_BYTES = 16_384;
export const MAX_BLOB_TOKEN_BYTES = 256;
export const MAX_MEDIA_TYPE_BYTES = 255;
/** The plain-text projection of diagnostics added to a result's text (DIAG-03). */
export const MAX_DIAGNOSTICS_PROJECTED = 8;
export const MAX_DIAGNOSTICS_PROJECTION_BYTES = 4_096;

/** session_entries (W 2.21, WAVE1-29/30): entry_type, the custom data, an entry id, a name or label. */
export const MAX_SESSION_ENTRY_TYPE_BYTES = 128;
export const MAX_SESSION_ENTRY_DATA_BYTES = 65_536;
export const MAX_SESSION_ENTRY_ID_BYTES = 256;
export const MAX_SESSION_NAME_BYTES = 4_096;

/** session/compact custom_instructions, raw UTF-8 before normalization (W 2.21c, SCOMP-04). */
export const MAX_COMPACT_INSTRUCTIONS_BYTES = 16_384;
/**
 * Active-session operations (W 2.21b) waiting in the host's one ordered queue, the running one
 * included; one more is refused -32012 (SCTL-10). The reference names no number; 32 is room for
 * every extension's wait plus a switch without letting one extension pile up unbounded work.
 */
export const MAX_SESSION_CONTROL_QUEUE = 32;
