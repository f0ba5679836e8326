import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildReport, renderReport, reportJson } from "../../../../src/cost/index.ts";
import { verdictSavings } from "../../../../src/pr/index.ts";
import { recordFixCost, recordFlakes, recordInherited, type FlakeDeps } from "../../../../src/pr/fix/flake-record.ts";
import { testConfig } from "../support.ts";

/*
 * /otto-cost's estimate of what flake and inherited verdicts saved, from real ledger files written
 * by the fix flow's own recorders: each PR head judged flaky or inherited once, priced at its
 * repository's median fix, kept apart from the spend.
 */

describe("what flake and inherited verdicts saved (/otto-cost)", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  function deps(dir: string, at: string): FlakeDeps {
    return {
      storeDir: dir,
      config: testConfig({ pr: { flakes: { notify_after: 99 } } }),
      notify: async () => ({ delivered: [], failed: [] }),
      secrets: [],
      now: () => new Date(at),
      log: () => {},
    };
  }
  const pr = (n: number, head: string, repo = "octo/app") => ({
    provider: "github" as const,
    repo,
    url: `https://github.com/${repo}/pull/${n}`,
    id: String(n),
    key: `github-${repo.replace("/", "-")}-${n}`,
    head,
  });
  const check = (name: string, fingerprint: string) => ({ name, fingerprint, lines: [`FAIL ${name}`] });

  it("counts each PR head once per verdict in the window, priced at the repository's median fix; unpriced without a fix", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-saved-"));
    dirs.push(dir);
    const since = new Date("2026-11-20T00:00:00.000Z");
    // Before the window: not counted.
    await recordFlakes(deps(dir, "2026-11-10T00:00:00.000Z"), pr(1, "a".repeat(40)), [check("unit", "fp1")], "rerun");
    // Two checks of one head are one verdict; the same head judged again is still one.
    const late = deps(dir, "2026-11-24T00:00:00.000Z");
    await recordFlakes(late, pr(2, "b".repeat(40)), [check("unit", "fp1"), check("e2e", "fp2")], "local");
    await recordFlakes(late, pr(2, "b".repeat(40)), [check("unit", "fp1")], "known");
    await recordFlakes(late, pr(3, "c".repeat(40)), [check("unit", "fp1")], "known");
    // Inherited: asked again at each full poll while main is red, still one verdict per head.
    const red = { name: "lint", fingerprint: "fp9", lines: ["error x"], baseSha: "d".repeat(40) };
    await recordInherited(late, pr(4, "e".repeat(40)), [red]);
    await recordInherited(deps(dir, "2026-11-25T00:00:00.000Z"), pr(4, "e".repeat(40)), [red]);
    for (const usd of [0.1, 0.3, 0.2]) await recordFixCost(late, pr(5, "f".repeat(40)), usd, usd * 100_000);
    // Another repository, no fix there yet: counted, not priced.
    await recordFlakes(late, pr(7, "9".repeat(40), "octo/lib"), [check("unit", "fp1")], "rerun");

    const mine = await verdictSavings(dir, since, ["/home/ana/app", "Octo/App"]);
    expect(mine).toEqual({ verdicts: 3, flaky: 2, inherited: 1, usd: 0.6000000000000001, tokens: 60_000, fixes: 3, unpriced: 0 });
    const all = await verdictSavings(dir, since, "all");
    expect(all).toMatchObject({ verdicts: 4, flaky: 3, inherited: 1, unpriced: 1 });
    expect(await verdictSavings(dir, new Date("2026-11-26T00:00:00.000Z"), "all")).toBeUndefined();

    const report = { ...buildReport([], { by: "day", since, repos: ["/home/ana/app"] }), saved: mine };
    const text = renderReport(report);
    // Never mixed into the spend: the spend line still says nothing was spent.
    expect(text.split("\n")[0]).toContain("otto spent 0 tokens, $0.00");
    expect(text).toContain(
      "Saved by flake and inherited verdicts (an estimate, not part of the spend above): 3 verdicts (2 flaky, 1 inherited), about $0.60, 60.0k tokens (median of 3 fixes).",
    );
    const json = JSON.parse(reportJson(report)) as { total: { usd: number }; saved: Record<string, unknown> };
    expect(json.total.usd).toBe(0);
    expect(json.saved).toEqual({
      estimate: true,
      verdicts: 3,
      flaky: 2,
      inherited: 1,
      usd: 0.6000000000000001,
      tokens: 60_000,
      fixes: 3,
      unpriced: 0,
    });
    expect(renderReport({ ...report, saved: all })).toContain(
      "4 verdicts (3 flaky, 1 inherited), about $0.60, 60.0k tokens (median of 3 fixes); 1 of them in repositories with no fix yet are not priced.",
    );
  });
});
