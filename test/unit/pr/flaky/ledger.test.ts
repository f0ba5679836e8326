import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  addFixCost,
  addFlake,
  dueForNotice,
  emptyLedger,
  flakeLedgerFile,
  medianFixCost,
  rankFlakes,
  readFlakeLedger,
  updateFlakeLedger,
  type FlakeOccurrence,
} from "../../../../src/pr/store/flakes.ts";

const DAY = 24 * 3600 * 1000;
const occ = (over: Partial<FlakeOccurrence> = {}): FlakeOccurrence => ({
  pr: "github-octo-app-1",
  number: 1,
  url: "https://github.com/octo/app/pull/1",
  head: "a".repeat(40),
  check: "unit",
  at: "2026-02-06T10:00:00.000Z",
  verdict: "rerun",
  ...over,
});

describe("the flake ledger", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it("one file per repository beside the PR documents, written under a lock; concurrent writers lose nothing", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-flakes-"));
    dirs.push(dir);
    const file = flakeLedgerFile(dir, "github", "Octo/App");
    expect(file).toBe(path.join(dir, "flakes", "github-octo_app.json"));
    expect(await readFlakeLedger(file)).toEqual(emptyLedger());
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        updateFlakeLedger(file, (l) => addFlake(l, "fp1", ["FAIL x"], occ({ pr: `github-octo-app-${i + 1}`, number: i + 1 }))),
      ),
    );
    const ledger = await readFlakeLedger(file);
    expect(ledger.flakes.fp1?.occurrences.map((o) => o.number).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file)).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  it("a broken ledger is a clear error naming the file", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-flakes-"));
    dirs.push(dir);
    const file = flakeLedgerFile(dir, "github", "octo/app");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{"flakes": {"x": {"occurrences": [{"pr": 3}]}}}');
    await expect(readFlakeLedger(file)).rejects.toMatchObject({ code: "flake_ledger", fix: `Fix or delete ${file}.` });
  });

  it("the same PR, head and check counts once; ranks by frequency; notices after N in the window, once per window", () => {
    let l = addFlake(emptyLedger(), "fp1", ["FAIL a"], occ());
    l = addFlake(l, "fp1", ["FAIL a"], occ());
    expect(l.flakes.fp1?.occurrences).toHaveLength(1);
    l = addFlake(l, "fp2", ["FAIL b"], occ({ head: "b".repeat(40) }));
    l = addFlake(l, "fp2", ["FAIL b"], occ({ head: "c".repeat(40), at: "2026-02-07T10:00:00.000Z" }));
    expect(rankFlakes(l).map((f) => f.fingerprint)).toEqual(["fp2", "fp1"]);
    const now = new Date("2026-02-08T00:00:00.000Z");
    const entry = l.flakes.fp2!;
    expect(dueForNotice(entry, now, 7 * DAY, 3)).toBe(false);
    expect(dueForNotice(entry, now, 7 * DAY, 2)).toBe(true);
    expect(dueForNotice(entry, now, DAY, 2)).toBe(false);
    expect(dueForNotice({ ...entry, notified: "2026-02-07T12:00:00.000Z" }, now, 7 * DAY, 2)).toBe(false);
  });

  it("the median fix cost of the repository", () => {
    expect(medianFixCost(emptyLedger())).toBeUndefined();
    let l = emptyLedger();
    for (const usd of [0.4, 0.1, 0.2]) l = addFixCost(l, { at: "2026-02-06T10:00:00.000Z", usd, tokens: usd * 100_000 });
    expect(medianFixCost(l)).toEqual({ usd: 0.2, tokens: 20_000, runs: 3 });
  });
});
