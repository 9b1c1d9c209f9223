"""Bounds used by typed tools and diagnostics, until the generated ``_bounds.py`` exists.

The first group is copied by hand from packages/protocol/src/bounds.ts (same names, same values);
when the generated module lands, import these from it and delete them here. The second group is
not in bounds.ts yet: these are the Python SDK typed/diagnostics bounds of the spec (PY-18,
PY-19, DIAG-02, DIAG-03) and the GAP defaults of DIAG-06 (docs/decisions.md, "Python typed tools
and diagnostics"); they belong in bounds.ts so every SDK and the host share one copy.
"""

# --- Copied from packages/protocol/src/bounds.ts -------------------------------------------------
MAX_TOOL_NAME_BYTES = 128
MAX_DESCRIPTION_BYTES = 16_384
MAX_SCHEMA_DEPTH = 32
MAX_SCHEMA_PROPERTY_NAME_BYTES = 256
MAX_SAFE_JSON_INTEGER = 2**53 - 1
MAX_STRUCTURED_CONTENT_BYTES = 262_144
MAX_METADATA_BYTES = 65_536
MAX_VALUE_DEPTH = 32
MAX_VALUE_NODES = 16_384
MAX_METADATA_KEY_BYTES = 256
MAX_QUOTED_VALUE_CHARS = 64
MAX_ARTIFACT_ID_BYTES = 256
MAX_ARTIFACT_PATH_BYTES = 4_096

# --- Not in bounds.ts yet (spec values and GAP defaults) -----------------------------------------
# PY-18: a generated parameters or output_schema, each, as compact JSON.
MAX_TYPED_SCHEMA_BYTES = 65_536
# PY-18: a typed value (arguments or structured content) as compact JSON; depth and nodes are
# MAX_VALUE_DEPTH and MAX_VALUE_NODES.
MAX_TYPED_VALUE_BYTES = 262_144
# PY-18: one string of a typed value, in UTF-8 bytes.
MAX_TYPED_STRING_BYTES = 131_072
# PY-19: an explicit summary, in UTF-8 bytes.
MAX_SUMMARY_BYTES = 4_096

# DIAG-02: diagnostics per result, and their encoded size (compact JSON of the list).
MAX_DIAGNOSTICS = 32
MAX_DIAGNOSTICS_BYTES = 65_536
# DIAG-03: the plain-text projection shows the first eight, in at most 4 KiB.
MAX_PROJECTED_DIAGNOSTICS = 8
MAX_DIAGNOSTICS_PROJECTION_BYTES = 4_096
# DIAG-06 (GAP defaults).
MAX_DIAGNOSTIC_CODE_BYTES = 128
MAX_DIAGNOSTIC_MESSAGE_BYTES = 4_096
MAX_DIAGNOSTIC_TITLE_BYTES = 1_024
MAX_DIAGNOSTIC_REVISION_BYTES = 256
MAX_DIAGNOSTIC_RELATED = 8
MAX_DIAGNOSTIC_FIXES = 8
MAX_DIAGNOSTIC_EDITS = 32
MAX_DIAGNOSTIC_ATTACHMENTS = 8
MAX_BLOB_TOKEN_BYTES = 256
MAX_MEDIA_TYPE_BYTES = 256
