import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { urlProblem } from "../../src/api/presentation-url.js";

function ok(url: string): void {
  assert.equal(urlProblem(url), null, `${url} should be accepted`);
}

function bad(url: string, fragment: string): void {
  const problem = urlProblem(url);
  assert.ok(problem !== null, `${url} should be refused`);
  assert.ok(problem.includes(fragment), `${url}: ${problem} does not say ${fragment}`);
}

test("PRES-14: absolute public http and https URLs are accepted", () => {
  ok("https://example.com");
  ok("HTTP://Example.COM:8080/path/to?q=1&r=%20#frag");
  ok("https://docs.example.org/a(b)/c;d=e,f!g*h'i~j");
  ok("https://xn--bcher-kva.example/");
  ok("https://93.184.216.34/");
  ok("https://[2606:4700::1111]/dns");
  ok("https://172.32.0.1/");
});

test("PRES-14: every other scheme is refused (javascript:, data:, file:, relative and protocol-relative)", () => {
  for (const url of [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,<b>",
    "file:///etc/passwd",
    "ftp://example.com/",
    "vbscript:x",
    "/relative",
    "//example.com/x",
    "https:/example.com",
    " https://example.com",
    "example.com",
  ]) {
    bad(url, "not an absolute http");
  }
});

test("PRES-14: credentials are refused", () => {
  bad("https://user@example.com/", "credentials");
  bad("https://user:pw@example.com/", "credentials");
  bad("https://example.com@evil.com/", "credentials");
});

test("PRES-14: localhost, *.localhost and .local hosts are refused, with or without a trailing dot", () => {
  bad("http://localhost/", "localhost");
  bad("http://LOCALHOST.:3000/", "localhost");
  bad("http://app.localhost/", "localhost");
  bad("http://printer.local/", ".local host");
  bad("http://printer.local./", ".local host");
});

test("PRES-14: private, loopback, link-local, unspecified and multicast IPv4 literals are refused", () => {
  bad("http://127.0.0.1/", "loopback");
  bad("http://127.255.1.2:80/", "loopback");
  bad("http://10.0.0.1/", "private");
  bad("http://172.16.5.4/", "private");
  bad("http://172.31.255.255/", "private");
  bad("http://192.168.1.1/", "private");
  bad("http://169.254.169.254/latest/meta-data", "link-local");
  bad("http://0.0.0.0/", "unspecified");
  bad("http://224.0.0.1/", "multicast");
  bad("http://239.255.255.250/", "multicast");
  bad("http://255.255.255.255/", "broadcast");
});

test(
  "PRES-14: numeric hosts other than a canonical dotted quad are refused (WHATWG would read them as " + "127.0.0.1)",
  () => {
    for (const host of ["127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1", "127.0.0.01", "1.2.3.4.5", "example.0x10"])
      bad(`http://${host}/`, "numeric host");
  },
);

test(
  "PRES-14: private, loopback, link-local, unspecified and multicast IPv6 literals are refused, mapped " +
    "IPv4 included",
  () => {
    bad("http://[::1]/", "loopback");
    bad("http://[0:0:0:0:0:0:0:1]/", "loopback");
    bad("http://[::]/", "unspecified");
    bad("http://[fe80::1]/", "link-local");
    bad("http://[fc00::1]/", "private");
    bad("http://[fd12:3456::1]/", "private");
    bad("http://[ff02::1]/", "multicast");
    bad("http://[::ffff:127.0.0.1]/", "loopback");
    bad("http://[::ffff:7f00:1]/", "loopback");
    bad("http://[::ffff:192.168.0.1]/", "private");
    bad("http://[fe80::1%25eth0]/", "invalid IPv6");
    bad("http://[1::2::3]/", "invalid IPv6");
    bad("http://[::1/", "unterminated");
  },
);

test("PRES-14: characters outside RFC 3986, bad escapes, ports and hosts are refused", () => {
  bad("https://example.com/a b", "percent-encoded");
  bad("https://example.com/\u0000", "percent-encoded");
  bad("https://example.com\\@evil.com/", "percent-encoded");
  bad('https://example.com/"><script>', "percent-encoded");
  bad("https://exämple.com/", "percent-encoded");
  bad("https://example.com/%zz", "percent escape");
  bad("https://example.com:99999/", "invalid port");
  bad("https://example.com:8x/", "invalid port");
  bad("https:///path", "no host");
  bad("https://-bad-.com/", "invalid host name");
  bad("https://a_b.com/", "invalid host name");
});

test("PRES-14: property: any string not starting with http:// or https:// is refused", () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 60 }), (s) => {
      fc.pre(!/^https?:\/\//i.test(s));
      assert.notEqual(urlProblem(s), null);
    }),
  );
});

test(
  "PRES-14: property: every IPv4 literal in a refused range is refused, and the rest of the public " + "space accepted",
  () => {
    fc.assert(
      fc.property(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255), (a, b, c, d) => {
        const refusedRange =
          a === 0 ||
          a === 127 ||
          a === 10 ||
          (a === 172 && b >= 16 && b <= 31) ||
          (a === 192 && b === 168) ||
          (a === 100 && b >= 64 && b <= 127) ||
          (a === 169 && b === 254) ||
          a >= 224;
        assert.equal(urlProblem(`http://${a}.${b}.${c}.${d}/`) !== null, refusedRange);
        // The same address mapped into IPv6 is judged the same way.
        const mapped = `http://[::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}]/`;
        assert.equal(urlProblem(mapped) !== null, refusedRange);
      }),
    );
  },
);

test("PRES-14: property: a URL with any userinfo is refused", () => {
  const part = fc.string({ minLength: 1, maxLength: 10, unit: fc.constantFrom(..."abcXYZ019-._~".split("")) });
  fc.assert(
    fc.property(part, fc.option(part), (user, pw) => {
      bad(`https://${user}${pw === null ? "" : `:${pw}`}@example.com/`, "credentials");
    }),
  );
});
