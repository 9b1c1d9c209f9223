/**
 * What `octet check` reports: one result per check, each naming the requirement of
 * shared/spec/REQUIREMENTS.md it checks, what was expected and what was seen.
 */

export interface CheckResult {
  /** The requirement ID, e.g. "ERR-01". */
  id: string;
  title: string;
  /** "skip": not applicable to this extension (the reason is in `seen`). */
  outcome: "pass" | "fail" | "skip";
  expected: string;
  seen: string;
}

export interface CheckReport {
  extension: string;
  manifestPath: string;
  api: string;
  /** Whether every check passed (skips do not fail a report). */
  ok: boolean;
  results: CheckResult[];
}

export class Recorder {
  readonly results: CheckResult[] = [];

  pass(id: string, title: string, expected: string, seen: string): void {
    this.results.push({ id, title, outcome: "pass", expected, seen });
  }

  fail(id: string, title: string, expected: string, seen: string): void {
    this.results.push({ id, title, outcome: "fail", expected, seen });
  }

  skip(id: string, title: string, why: string): void {
    this.results.push({ id, title, outcome: "skip", expected: "", seen: why });
  }

  /** Pass when `problem` is null, else fail with it as what was seen. */
  check(id: string, title: string, expected: string, problem: string | null, seen = "as expected"): void {
    if (problem === null) this.pass(id, title, expected, seen);
    else this.fail(id, title, expected, problem);
  }
}

/** A frame, short enough for a report line. */
export function brief(value: unknown, max = 240): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
