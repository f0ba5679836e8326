import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { carrySpend } from "../../../../src/pr/ci/ledger-carry.ts";
import { appendLedger, ledgerFile, readLedger, ZERO_USAGE } from "../../../../src/cost/index.ts";
import { readCaps } from "../../../../src/pr/context/daily-caps.ts";

/* A fresh runner's ledger gets the day's earlier spend of the PR from its state, so limits.pr_usd_per_day holds across jobs. */

const NOW = new Date("2026-11-27T12:00:00Z");
const LABEL = "octo/app#1";
const spend = (usd: number, day = "2026-11-27") => ({
  day,
  today: { ...ZERO_USAGE, requests: 4, usd },
  total: { ...ZERO_USAGE, requests: 9, usd: usd * 3 },
  fix_attempts: [],
  comments: [],
});

describe("carrySpend", () => {
  const dirs: string[] = [];
  const env = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-carry-"));
    dirs.push(dir);
    return { XDG_DATA_HOME: dir, HOME: dir };
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it("writes today's spend into an empty ledger, and the PR's daily cap then counts it", async () => {
    const e = env();
    expect((await carrySpend(e, LABEL, spend(1.5), NOW)).usd).toBe(1.5);
    const entries = await readLedger(ledgerFile(e));
    expect(entries).toMatchObject([{ labels: { pr: LABEL }, usage: { usd: 1.5, requests: 4 } }]);
    expect(await readCaps(e, { prUsd: 2, watcherUsd: 10 }, LABEL, NOW)).toMatchObject({ kind: "open", budget: { usd: 0.5 } });
    expect(await readCaps(e, { prUsd: 1, watcherUsd: 10 }, LABEL, NOW)).toMatchObject({ kind: "pr" });
  });

  it("carries nothing from another day, and only what a kept ledger does not hold yet", async () => {
    const e = env();
    expect((await carrySpend(e, LABEL, spend(1.5, "2026-11-26"), NOW)).usd).toBe(0);
    expect((await carrySpend(e, LABEL, undefined, NOW)).usd).toBe(0);
    await appendLedger(ledgerFile(e), [
      {
        at: NOW.toISOString(),
        session: "s",
        message: "m",
        model: "p/m",
        path: ["pr fix"],
        labels: { pr: LABEL },
        usage: { ...ZERO_USAGE, requests: 1, usd: 1 },
      },
    ]);
    expect((await carrySpend(e, LABEL, spend(1.5), NOW)).usd).toBe(0.5);
    expect((await carrySpend(e, LABEL, spend(1.5), NOW)).usd).toBe(0);
  });
});
