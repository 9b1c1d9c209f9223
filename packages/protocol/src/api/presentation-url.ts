/**
 * The sanitizer of `url` references in presentation snapshots (PRES-14): an absolute http or
 * https URL that a frontend may open after a click without reaching the person's own machine or
 * network. Pure and hand-written: the protocol package has no URL global (it runs in QuickJS too),
 * and a strict grammar is easier to reason about than a lenient parser's normalizations.
 *
 * Refused: any other scheme (javascript:, data:, file:...), credentials (user@ or user:pass@),
 * characters outside RFC 3986 (spaces, controls, backslashes, quotes, non-ASCII: send them
 * percent-encoded), bad percent escapes, localhost and *.localhost, *.local, and IP literals that
 * are private, loopback, link-local, unspecified or multicast. A numeric host must be a canonical
 * dotted quad: WHATWG parsers read "127.1", "0x7f.0.0.1" or "2130706433" as 127.0.0.1, so any
 * other numeric form is refused rather than guessed at.
 */

/** RFC 3986 characters (unreserved, reserved and "%"); anything else must be percent-encoded. */
const URI_CHARS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;
const SCHEME = /^(https?):\/\//i;
const HOST_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const NUMERIC_LABEL = /^(?:0x[0-9A-Fa-f]*|[0-9]+)$/i;
const DOTTED_QUAD = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** Why `url` is not a safe presentation URL, or null when it is. */
export function urlProblem(url: string): string | null {
  const scheme = SCHEME.exec(url);
  if (!scheme) return "is not an absolute http:// or https:// URL";
  if (!URI_CHARS.test(url))
    return "contains characters that must be percent-encoded (spaces, controls, backslashes, quotes or non-ASCII)";
  if (BAD_PERCENT.test(url)) return "contains a malformed percent escape";
  const rest = url.slice(scheme[0].length);
  const end = rest.search(/[/?#]/);
  const authority = end === -1 ? rest : rest.slice(0, end);
  if (authority.includes("@")) return "carries credentials (user@ or user:password@)";
  let host = authority;
  let port: string | undefined;
  if (authority.startsWith("[")) {
    const close = authority.indexOf("]");
    if (close === -1) return "has an unterminated IPv6 literal";
    host = authority.slice(0, close + 1);
    const after = authority.slice(close + 1);
    if (after !== "" && !after.startsWith(":")) return "has characters after its IPv6 literal";
    port = after === "" ? undefined : after.slice(1);
  } else {
    const colon = authority.lastIndexOf(":");
    if (colon !== -1) {
      host = authority.slice(0, colon);
      port = authority.slice(colon + 1);
    }
  }
  if (port !== undefined && port !== "" && (!/^\d{1,5}$/.test(port) || Number(port) > 65_535))
    return `has an invalid port ${JSON.stringify(port.slice(0, 16))}`;
  if (host === "") return "has no host";
  if (host.startsWith("[")) return ipv6Problem(host.slice(1, -1));
  return hostnameProblem(host);
}

function hostnameProblem(raw: string): string | null {
  // A trailing dot names the same host ("localhost." is localhost).
  const host = (raw.endsWith(".") ? raw.slice(0, -1) : raw).toLowerCase();
  const labels = host.split(".");
  const last = labels[labels.length - 1] ?? "";
  if (NUMERIC_LABEL.test(last)) {
    if (!DOTTED_QUAD.test(host))
      return (
        `has the numeric host ${JSON.stringify(raw.slice(0, 64))}, which is not a canonical dotted-quad ` +
        `IPv4 address`
      );
    return ipv4Problem(host.split(".").map(Number));
  }
  if (!labels.every((l) => HOST_LABEL.test(l))) return `has the invalid host name ${JSON.stringify(raw.slice(0, 64))}`;
  if (host === "localhost" || host.endsWith(".localhost")) return "targets localhost";
  if (host === "local" || host.endsWith(".local")) return "targets a .local host";
  return null;
}

/** Private, loopback, link-local, unspecified and multicast IPv4 ranges (PRES-14). */
function ipv4Problem([a = 0, b = 0, c = 0, d = 0]: number[]): string | null {
  const ip = `${a}.${b}.${c}.${d}`;
  if (a === 0) return `targets the unspecified address ${ip}`;
  if (a === 127) return `targets the loopback address ${ip}`;
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127))
    return `targets the private address ${ip}`;
  if (a === 169 && b === 254) return `targets the link-local address ${ip}`;
  if (a >= 224 && a <= 239) return `targets the multicast address ${ip}`;
  if (a >= 240) return `targets the reserved or broadcast address ${ip}`;
  return null;
}

/** The eight 16-bit groups of an IPv6 literal (no zone), or null when it is not one. */
function parseIpv6(text: string): number[] | null {
  let groups = text;
  const tail: number[] = [];
  // An embedded IPv4 tail ("::ffff:10.0.0.1") is two groups.
  const v4 = /(?:^|:)((?:\d{1,3}\.){3}\d{1,3})$/.exec(groups);
  if (v4) {
    const quad = v4[1] as string;
    if (!DOTTED_QUAD.test(quad)) return null;
    const [a = 0, b = 0, c = 0, d = 0] = quad.split(".").map(Number);
    tail.push((a << 8) | b, (c << 8) | d);
    groups = groups.slice(0, groups.length - quad.length);
    if (groups.endsWith(":") && !groups.endsWith("::")) groups = groups.slice(0, -1);
  }
  const halves = groups.split("::");
  if (halves.length > 2) return null;
  const read = (s: string): number[] | null => {
    if (s === "") return [];
    const parts = s.split(":");
    if (!parts.every((p) => /^[0-9A-Fa-f]{1,4}$/.test(p))) return null;
    return parts.map((p) => parseInt(p, 16));
  };
  const head = read(halves[0] ?? "");
  const back = halves.length === 2 ? read(halves[1] ?? "") : [];
  if (head === null || back === null) return null;
  const known = head.length + back.length + tail.length;
  if (halves.length === 1) return known === 8 ? [...head, ...tail] : null;
  if (known > 7) return null;
  return [...head, ...new Array<number>(8 - known).fill(0), ...back, ...tail];
}

function ipv6Problem(text: string): string | null {
  const g = parseIpv6(text);
  if (g === null) return `has the invalid IPv6 literal ${JSON.stringify(`[${text.slice(0, 64)}]`)}`;
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const ip = `[${text}]`;
  const zeroHead = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (zeroHead && g5 === 0 && g6 === 0 && g7 === 0) return `targets the unspecified address ${ip}`;
  if (zeroHead && g5 === 0 && g6 === 0 && g7 === 1) return `targets the loopback address ${ip}`;
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses reach the IPv4 host.
  if (zeroHead && (g5 === 0xffff || g5 === 0)) {
    const v4 = ipv4Problem([g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff]);
    if (v4 !== null) return `${v4} (through ${ip})`;
  }
  if ((g0 & 0xffc0) === 0xfe80) return `targets the link-local address ${ip}`;
  if ((g0 & 0xffc0) === 0xfec0 || (g0 & 0xfe00) === 0xfc00) return `targets the private address ${ip}`;
  if ((g0 & 0xff00) === 0xff00) return `targets the multicast address ${ip}`;
  return null;
}
