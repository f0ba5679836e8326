import { describe, expect, it } from "vitest";
import {
  buildReport,
  messageUsage,
  parseReportKey,
  parseSince,
  renderReport,
  reportJson,
  type LedgerEntry,
} from "../../../src/cost/index.ts";

const REPO = "/home/ana/app";

function entry(
  at: string,
  model: string,
  input: number,
  output: number,
  usd: number,
  labels: LedgerEntry["labels"],
  priced = true,
): LedgerEntry {
  return {
    at,
    session: "s",
    message: "m",
    model,
    path: ["run"],
    labels,
    usage: messageUsage({ tokens: { input, output }, cost: usd }, priced),
  };
}

const ENTRIES: LedgerEntry[] = [
  entry("2026-11-10T09:00:00.000Z", "mock/m1", 5000, 500, 1, { repo: REPO, spec: "old" }),
  entry("2026-11-24T09:00:00.000Z", "mock/m1", 1000, 200, 0.006, { repo: REPO, spec: "demo" }),
  entry("2026-11-24T23:59:00.000Z", "mock/m2", 2000, 100, 0.0025, { repo: REPO, spec: "demo" }),
  entry("2026-11-25T10:00:00.000Z", "mock/m1", 3000, 300, 0.0135, { repo: REPO, pr: "github-octo-app-5", review: "github-octo-app-5" }),
  entry("2026-11-25T11:00:00.000Z", "local/free", 400, 40, 0, { repo: REPO, pr: "github-octo-app-5" }, false),
  entry("2026-11-26T08:00:00.000Z", "mock/m1", 7000, 700, 0.0315, { repo: "/home/ana/other", spec: "x" }),
];
const SINCE = new Date("2026-11-19T12:00:00.000Z");

describe("the /otto-cost report", () => {
  it("groups this repository's calls of the window by UTC day, oldest first, with a total", () => {
    const report = buildReport(ENTRIES, { by: "day", since: SINCE, repos: [REPO] });
    expect(report.rows.map((r) => [r.key, r.usage.requests, r.usage.input + r.usage.output])).toEqual([
      ["2026-11-24", 2, 3300],
      ["2026-11-25", 2, 3740],
    ]);
    expect(report.total).toMatchObject({ requests: 4, input: 6400, output: 640, usd: 0.022, unpriced: 1 });
    expect(report.otherRepos).toMatchObject({ requests: 1, usd: 0.0315 });
    const text = renderReport(report);
    expect(text.split("\n")[0]).toBe(`otto spent 7.04k tokens, ≥ $0.02 since 2026-11-19T12:00:00Z in this repository (${REPO}).`);
    expect(text).toContain("| 2026-11-24 | 2 | 3.00k | 0 | 0 | 300 | 3.30k | $0.0085 |");
    expect(text).toContain("| **total** | 4 | 6.40k | 0 | 0 | 640 | 7.04k | ≥ $0.02 |");
    expect(text).toContain("1 call(s) used a model without a price");
    expect(text).toContain("1 call(s) in other repositories (7.70k tokens, $0.03) are not counted here: add --all");
  });

  it("groups by spec, PR and model, most expensive first, calls without the label last; unpriced calls cost unknown", () => {
    const spec = buildReport(ENTRIES, { by: "spec", since: SINCE, repos: "all" });
    expect(spec.rows.map((r) => r.key)).toEqual(["x", "demo", "(none)"]);
    const pr = buildReport(ENTRIES, { by: "pr", since: SINCE, repos: [REPO] });
    expect(pr.rows.map((r) => [r.key, r.usage.requests])).toEqual([
      ["github-octo-app-5", 2],
      ["(none)", 2],
    ]);
    const model = buildReport(ENTRIES, { by: "model", since: SINCE, repos: [REPO] });
    expect(model.rows.map((r) => r.key)).toEqual(["mock/m1", "mock/m2", "local/free"]);
    expect(renderReport(model)).toContain("| local/free | 1 | 400 | 0 | 0 | 40 | 440 | cost unknown |");
  });

  it("--json: rows and total with tokens summed, usd null when every call of a row was unpriced", () => {
    const json = JSON.parse(reportJson(buildReport(ENTRIES, { by: "model", since: SINCE, repos: [REPO] }))) as {
      since: string;
      rows: Array<{ key: string; usd: number | null; tokens: number }>;
      total: { tokens: number; usd: number; unpriced: number };
    };
    expect(json.since).toBe("2026-11-19T12:00:00.000Z");
    expect(json.rows.find((r) => r.key === "local/free")).toMatchObject({ usd: null, tokens: 440 });
    expect(json.total).toMatchObject({ tokens: 7040, usd: 0.022, unpriced: 1 });
  });

  it("shows the cache reads OpenCode recorded beside the input, in the text and in --json", () => {
    // A provider's prompt cache served 3,000 of the call's input tokens: OpenCode's message tokens say so.
    const cached: LedgerEntry = {
      ...entry("2026-11-25T12:00:00.000Z", "mock/m1", 1000, 100, 0.005, { repo: REPO }),
      usage: messageUsage({ tokens: { input: 1000, output: 100, cache: { read: 3000, write: 0 } }, cost: 0.005 }, true),
    };
    const report = buildReport([cached], { by: "model", since: SINCE, repos: [REPO] });
    const text = renderReport(report);
    expect(text.split("\n")[0]).toBe(
      `otto spent 4.10k tokens (3.00k cache read), $0.0050 since 2026-11-19T12:00:00Z in this repository (${REPO}).`,
    );
    expect(text).toContain("| model | calls | input | cache read | cache write | output | tokens | cost |");
    expect(text).toContain("| mock/m1 | 1 | 1.00k | 3.00k | 0 | 100 | 4.10k | $0.0050 |");
    const json = JSON.parse(reportJson(report)) as { total: { input: number; cacheRead: number; tokens: number } };
    expect(json.total).toMatchObject({ input: 1000, cacheRead: 3000, tokens: 4100 });
    // Writes (Anthropic reports them) get a column of their own.
    const written: LedgerEntry = {
      ...cached,
      usage: messageUsage({ tokens: { input: 1000, output: 100, cache: { read: 0, write: 2500 } }, cost: 0.005 }, true),
    };
    expect(renderReport(buildReport([written], { by: "model", since: SINCE, repos: [REPO] }))).toContain(
      "| mock/m1 | 1 | 1.00k | 0 | 2.50k | 100 | 3.60k | $0.0050 |",
    );
  });

  it("says so when nothing is on record", () => {
    expect(renderReport(buildReport([], { by: "day", since: SINCE, repos: "all" }))).toContain("No model calls on record in that window.");
  });

  it("reads --since as a duration back from now or a UTC date, and --by as one of its keys; bad input names the flag and the form", () => {
    const now = new Date("2026-11-26T12:00:00.000Z");
    expect(parseSince(undefined, now).toISOString()).toBe("2026-11-19T12:00:00.000Z");
    expect(parseSince("24h", now).toISOString()).toBe("2026-11-25T12:00:00.000Z");
    expect(parseSince("30m", now).toISOString()).toBe("2026-11-26T11:30:00.000Z");
    expect(parseSince("2026-11-01", now).toISOString()).toBe("2026-11-01T00:00:00.000Z");
    expect(parseSince("2026-11-01T10:00:00Z", now).toISOString()).toBe("2026-11-01T10:00:00.000Z");
    expect(() => parseSince("last week", now)).toThrow(/--since last week is neither a duration nor a date/);
    expect(() => parseSince("2026-13-45", now)).toThrow(/--since/);
    expect(parseReportKey(undefined)).toBe("day");
    expect(parseReportKey("PR")).toBe("pr");
    expect(() => parseReportKey("repo")).toThrow(/--by repo is not a way to group the report/);
  });
});

describe("rules learning's spend", () => {
  it("is shown on a line of its own and in --json, part of the total; no line without learning calls", () => {
    const since = new Date("2026-11-20T00:00:00.000Z");
    const withLearning = [...ENTRIES, entry("2026-11-25T12:00:00.000Z", "mock/m1", 1000, 100, 0.004, { repo: REPO, rules: "learn" })];
    const report = buildReport(withLearning, { by: "day", since, repos: [REPO] });
    expect(report.learning.requests).toBe(1);
    expect(renderReport(report)).toContain(
      "Rules learning (/otto-rules learn and the watcher's daily run): 1 call(s), 1.10k tokens, $0.0040; part of the total above.",
    );
    expect((JSON.parse(reportJson(report)) as { learning: { requests: number } }).learning.requests).toBe(1);
    expect(renderReport(buildReport(ENTRIES, { by: "day", since, repos: [REPO] }))).not.toContain("Rules learning");
  });
});
