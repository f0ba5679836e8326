import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listFlakes } from "../../../../src/pr/index.ts";
import { addFixCost, addFlake, emptyLedger, flakeLedgerFile, updateFlakeLedger } from "../../../../src/pr/store/flakes.ts";
import { createPrStore } from "../../../../src/pr/store/store.ts";

describe("/otto-pr flakes", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it("lists each repository's flakes by frequency with links, main's red failures and the median fix; --json gives the ledger", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-flakes-cmd-"));
    dirs.push(dir);
    const store = createPrStore(dir);
    expect(await listFlakes({ store })).toContain("Nothing recorded yet");
    const occ = (n: number, head: string) => ({
      pr: `github-octo-app-${n}`,
      number: n,
      url: `https://github.com/octo/app/pull/${n}`,
      run_url: `https://github.com/octo/app/actions/runs/9/job/${n}`,
      head,
      check: "unit",
      at: `2026-02-0${n}T10:00:00.000Z`,
      verdict: "rerun" as const,
    });
    await updateFlakeLedger(
      flakeLedgerFile(dir, "github", "octo/app"),
      () => {
        let l = addFlake(emptyLedger(), "rare", ["FAIL rare.test.js"], occ(1, "a".repeat(40)));
        l = addFlake(l, "often", ["● login › times out"], occ(2, "b".repeat(40)));
        l = addFlake(l, "often", ["● login › times out"], occ(3, "c".repeat(40)));
        l = addFixCost(l, { at: "2026-02-01T00:00:00.000Z", usd: 0.25, tokens: 40_000 });
        return {
          ...l,
          red_main: {
            x: {
              check: "lint",
              since: "d".repeat(40),
              first_seen: "2026-02-01T00:00:00.000Z",
              last_seen: "2026-02-02T00:00:00.000Z",
              lines: ["error no-unused-vars"],
              heads: [],
              prs: [],
              notified: true,
            },
          },
        };
      },
      { provider: "github", repo: "octo/app" },
    );
    const text = await listFlakes({ store });
    expect(text).toContain("### github octo/app");
    expect(text.indexOf("login › times out")).toBeLessThan(text.indexOf("rare.test.js"));
    expect(text).toContain(
      "| 2 | `● login › times out` | unit | 2026-02-03T10:00:00.000Z | [#2](https://github.com/octo/app/pull/2) bbbbbbb rerun ([run](https://github.com/octo/app/actions/runs/9/job/2)); [#3]",
    );
    expect(text).toContain("- main is red: lint, since ddddddd");
    expect(text).toContain("a fix here costs $0.25 and 40.0k tokens (median of 1)");
    const json = JSON.parse(await listFlakes({ store }, { json: true })) as { repositories: Array<{ repo: string; ranked: string[] }> };
    expect(json.repositories[0]).toMatchObject({ repo: "octo/app", ranked: ["often", "rare"] });
  });
});
