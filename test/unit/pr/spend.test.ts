import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ZERO_USAGE, type LedgerEntry, type Usage } from "../../../src/cost/index.ts";
import {
  capReached,
  capText,
  checkCaps,
  firstToday,
  nextUtcDay,
  prLabel,
  spentToday,
  startOfUtcDay,
  utcDay,
} from "../../../src/pr/context/daily-caps.ts";
import { addSpend, docSpentToday } from "../../../src/pr/context/spend.ts";
import { cycleSpend } from "../../../src/pr/watch/cycle-spend.ts";
import { parsePrDocument, renderPrDocument } from "../../../src/pr/store/document.ts";

const usage = (usd: number, extra: Partial<Usage> = {}): Usage => ({ ...ZERO_USAGE, requests: 1, input: 1000, output: 100, usd, ...extra });
const entry = (at: string, pr: string | undefined, usd: number, extra: Partial<Usage> = {}): LedgerEntry => ({
  at,
  session: "s",
  message: "m",
  model: "mock/m1",
  path: ["x"],
  labels: pr ? { pr } : {},
  usage: usage(usd, extra),
});

const NOW = new Date("2026-11-26T21:30:00.000Z");
const A = "octo/app#1";
const B = "octo/app#2";

describe("the UTC day", () => {
  it("starts at 00:00 UTC whatever the time of day, and the next one 24 h later", () => {
    expect(startOfUtcDay(NOW).toISOString()).toBe("2026-11-26T00:00:00.000Z");
    expect(startOfUtcDay(new Date("2026-11-26T00:00:00.000Z")).toISOString()).toBe("2026-11-26T00:00:00.000Z");
    expect(startOfUtcDay(new Date("2026-11-26T23:59:59.999Z")).toISOString()).toBe("2026-11-26T00:00:00.000Z");
    expect(nextUtcDay(NOW).toISOString()).toBe("2026-11-27T00:00:00.000Z");
    expect(utcDay(new Date("2026-12-31T23:59:59.000Z"))).toBe("2026-12-31");
  });
});

describe("spentToday", () => {
  const entries = [
    entry("2026-11-25T23:59:59.999Z", A, 9), // yesterday
    entry("2026-11-26T00:00:00.000Z", A, 1.25),
    entry("2026-11-26T10:00:00.000Z", A, 0.5),
    entry("2026-11-26T11:00:00.000Z", B, 2),
    entry("2026-11-26T12:00:00.000Z", undefined, 7), // not PR work (a spec run)
  ];
  it("sums one PR's entries of today", () => {
    const spent = spentToday(entries, NOW, A);
    expect(spent.usd).toBe(1.75);
    expect(spent.requests).toBe(2);
    expect(spent.input).toBe(2000);
  });
  it("sums every PR's entries of today for the watcher, and leaves other work out", () => {
    expect(spentToday(entries, NOW).usd).toBe(3.75);
    expect(spentToday(entries, NOW, "octo/app#3")).toEqual(ZERO_USAGE);
  });
});

describe("checkCaps", () => {
  const caps = { prUsd: 5, watcherUsd: 20 };
  it("opens with what is left of the tighter cap as the budget", () => {
    const check = checkCaps([entry("2026-11-26T01:00:00.000Z", A, 3.5), entry("2026-11-26T02:00:00.000Z", B, 1)], A, caps, NOW);
    expect(check.kind).toBe("open");
    if (check.kind !== "open") return;
    expect(check.budget.usd).toBe(1.5);
    expect(check.budget.fix).toContain("2026-11-27T00:00:00Z");
    const watcherTight = checkCaps([entry("2026-11-26T01:00:00.000Z", B, 19.2)], A, caps, NOW);
    expect(watcherTight.kind === "open" && watcherTight.budget.usd).toBe(0.8);
  });
  it("holds a PR at its cap (at or over it), and only that PR", () => {
    const entries = [entry("2026-11-26T01:00:00.000Z", A, 3), entry("2026-11-26T02:00:00.000Z", A, 2)];
    const held = checkCaps(entries, A, caps, NOW);
    expect(held).toMatchObject({ kind: "pr", cap: 5 });
    expect(held.kind !== "open" && held.spent.usd).toBe(5);
    expect(checkCaps(entries, B, caps, NOW).kind).toBe("open");
    // Yesterday's spend does not count.
    expect(checkCaps(entries, A, caps, new Date("2026-11-27T00:00:01.000Z")).kind).toBe("open");
  });
  it("holds every PR at the watcher's cap", () => {
    const entries = [entry("2026-11-26T01:00:00.000Z", A, 4), entry("2026-11-26T02:00:00.000Z", B, 16)];
    expect(checkCaps(entries, "octo/app#9", caps, NOW)).toMatchObject({ kind: "watcher", cap: 20 });
  });
  it("says when unpriced calls were made (their cost is unknown)", () => {
    const check = checkCaps([entry("2026-11-26T01:00:00.000Z", A, 0, { unpriced: 1 })], A, caps, NOW);
    expect(check).toMatchObject({ kind: "open", unpriced: true });
  });
  it("tells which cap a budget stop reached, and the text names spent, cap and when it resumes", () => {
    const open = checkCaps([entry("2026-11-26T01:00:00.000Z", A, 4)], A, caps, NOW);
    if (open.kind !== "open") throw new Error("open expected");
    const reached = capReached(open, usage(1.02), caps);
    expect(reached).toMatchObject({ kind: "pr", cap: 5 });
    const { title, text } = capText(reached, A, NOW);
    expect(title).toContain(A);
    expect(text).toContain("spent $5.02 of its $5.00 daily cap (limits.pr_usd_per_day)");
    expect(text).toContain("until 2026-11-27T00:00:00Z, or raise limits.pr_usd_per_day");
  });
});

describe("the spend in a PR document", () => {
  it("adds to today's and the total, starts a new day from zero, and keeps each attempt's and comment's own", () => {
    let spend = addSpend(undefined, usage(0.1), NOW, { attempt: 1, usage: usage(0.1) });
    spend = addSpend(spend, usage(0.2), NOW, { comment: "c7", usage: usage(0.2) });
    spend = addSpend(spend, usage(0.3), NOW, { comment: "c7", usage: usage(0.3) });
    expect(spend.today.usd).toBeCloseTo(0.6, 9);
    expect(spend.comments).toEqual([{ id: "c7", at: NOW.toISOString(), usage: { ...usage(0.5), requests: 2, input: 2000, output: 200 } }]);
    const tomorrow = new Date("2026-11-27T08:00:00.000Z");
    expect(docSpentToday(spend, tomorrow)).toEqual(ZERO_USAGE);
    spend = addSpend(spend, usage(1), tomorrow);
    expect(spend.day).toBe("2026-11-27");
    expect(spend.today.usd).toBe(1);
    expect(spend.total.usd).toBe(1.6);
    expect(spend.fix_attempts.map((a) => a.attempt)).toEqual([1]);
  });

  it("round-trips through the document; a document without it still loads", () => {
    const text =
      "---\nid: '1'\nprovider: github\nrepo: octo/app\nstatus: watching\nurl: https://github.com/octo/app/pull/1\ncreated: 2026-11-01T00:00:00.000Z\n---\n# PR #1\n";
    const old = parsePrDocument("github-octo-app-1", text);
    expect(old.data.spend).toBeUndefined();
    expect(prLabel(old.data)).toBe("octo/app#1");
    const spend = addSpend(undefined, usage(0.25), NOW, { attempt: 2, usage: usage(0.25) });
    const again = parsePrDocument("github-octo-app-1", renderPrDocument({ ...old, data: { ...old.data, spend, cap_hold: "2026-11-26" } }));
    expect(again.data.spend).toEqual(spend);
    expect(again.data.cap_hold).toBe("2026-11-26");
  });
});

describe("firstToday", () => {
  it("is true once a day per name, across callers", async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), "otto-spend-"));
    try {
      const env = { XDG_DATA_HOME: data };
      expect(await firstToday(env, "watcher-cap", NOW)).toBe(true);
      expect(await firstToday(env, "watcher-cap", NOW)).toBe(false);
      expect(await firstToday(env, "unpriced", NOW)).toBe(true);
      expect(await firstToday(env, "watcher-cap", new Date("2026-11-27T00:00:00.000Z"))).toBe(true);
    } finally {
      fs.rmSync(data, { recursive: true, force: true });
    }
  });
});

describe("cycleSpend", () => {
  it("sums the cycle's entries per PR row", () => {
    const report = {
      started: "2026-11-26T21:00:00.000Z",
      finished: "2026-11-26T21:01:00.000Z",
      results: [
        { key: "github-octo-app-1", pr: A, outcome: "updated" as const, status: "watching" as const, summary: "", events: [] },
        { key: "github-octo-app-2", pr: B, outcome: "unchanged" as const, status: "green" as const, summary: "", events: [] },
      ],
    };
    const out = cycleSpend(report, [
      entry("2026-11-26T20:59:59.000Z", A, 5),
      entry("2026-11-26T21:00:30.000Z", A, 0.25),
      entry("2026-11-26T21:00:40.000Z", A, 0.5),
    ]);
    expect(out.results[0]?.usage?.usd).toBe(0.75);
    expect(out.results[1]?.usage).toBeUndefined();
  });
});
