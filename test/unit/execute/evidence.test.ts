import { describe, expect, it } from "vitest";
import { changedDuring, checksField, filesField, judgeEvidence, NO_EVIDENCE, noChangesReason } from "../../../src/execute/evidence.ts";
import { evidenceCell } from "../../../src/execute/progress.ts";
import type { CheckResult } from "../../../src/workspace/index.ts";

const check = (command: string, exitCode: number, extra: Partial<CheckResult> = {}): CheckResult => ({
  command,
  exitCode,
  passed: exitCode === 0,
  timedOut: false,
  durationMs: 1,
  output: "",
  ...extra,
});

describe("noChangesReason", () => {
  it("reads a NO_CHANGES line anywhere in the final message, the last one winning", () => {
    expect(noChangesReason("Looked around.\nNO_CHANGES: already implemented by src/greet.ts\n\nChecks pass.")).toBe(
      "already implemented by src/greet.ts",
    );
    expect(noChangesReason("NO_CHANGES: first\nNO_CHANGES: second")).toBe("second");
    expect(noChangesReason("**NO_CHANGES: done in a.ts**")).toBe("done in a.ts");
    expect(noChangesReason("- `NO_CHANGES: listed`")).toBe("listed");
  });

  it("needs a reason, at the start of a line, spelled exactly", () => {
    expect(noChangesReason("NO_CHANGES:")).toBeUndefined();
    expect(noChangesReason("NO_CHANGES:   ")).toBeUndefined();
    expect(noChangesReason("I made NO_CHANGES: none needed")).toBeUndefined();
    expect(noChangesReason("no_changes: lower case")).toBeUndefined();
    expect(noChangesReason("Created src/a.ts.")).toBeUndefined();
  });
});

describe("judgeEvidence", () => {
  it("changed files are evidence; else a NO_CHANGES reason; else the attempt is not done", () => {
    expect(judgeEvidence(["src/a.ts"], "Done.\nNO_CHANGES: ignored when files changed")).toEqual({
      ok: true,
      evidence: { files: ["src/a.ts"] },
    });
    expect(judgeEvidence([], "NO_CHANGES: already implemented by src/a.ts")).toEqual({
      ok: true,
      evidence: { files: [], noChanges: "already implemented by src/a.ts" },
    });
    expect(judgeEvidence([], "All done, trust me.")).toEqual({ ok: false, reason: NO_EVIDENCE });
    expect(NO_EVIDENCE).toBe("the session changed no file and gave no NO_CHANGES reason");
  });
});

describe("changedDuring", () => {
  it("takes the paths that changed between the attempt's snapshots, otto's spec folder aside", () => {
    const before = { entries: { "dirty.ts": "file:644:a", "same.ts": "file:644:s", ".otto/specs/x/tasks.md": "file:644:1" } };
    const after = {
      entries: {
        "dirty.ts": "file:644:b",
        "same.ts": "file:644:s",
        "new.ts": "file:644:n",
        ".otto/specs/x/tasks.md": "file:644:2",
        ".otto/specs/x/history/run-001.md": "file:644:h",
      },
    };
    expect(changedDuring(before, after, [".otto/specs/x/"])).toEqual(["dirty.ts", "new.ts"]);
    // A file committed or reverted meanwhile is clean now: it changed too.
    expect(changedDuring({ entries: { "gone.ts": "file:644:g" } }, { entries: {} }, [])).toEqual(["gone.ts"]);
  });
});

describe("evidence fields", () => {
  it("names at most ten files, then how many more", () => {
    expect(filesField(["a.ts", "b.ts"])).toBe("a.ts, b.ts");
    const many = Array.from({ length: 13 }, (_, i) => `f${i}.ts`);
    expect(filesField(many)).toBe("f0.ts, f1.ts, f2.ts, f3.ts, f4.ts, f5.ts, f6.ts, f7.ts, f8.ts, f9.ts and 3 more");
  });

  it("says each check's exit code, a timeout, and a pre-existing failure that did not get worse", () => {
    const lint = check("npm run lint", 1);
    const slow = check("npm test", -1, { timedOut: true });
    expect(checksField([check("npm test", 0), check("npm run lint", 0)])).toBe("npm test exit 0, npm run lint exit 0");
    expect(checksField([slow, lint], [slow, lint])).toBe("npm test timed out, npm run lint exit 1");
    expect(checksField([check("npm test", 1)], [])).toBe("npm test exit 1 (pre-existing, not worse)");
    expect(checksField([])).toBe("none");
  });

  it("the summary's evidence cell reads the task's fields", () => {
    expect(evidenceCell({ commit: "1a2b3c4", changed_files: "a.ts, b.ts", checks: "npm test exit 0" })).toBe(
      "commit 1a2b3c4 · files a.ts, b.ts · checks npm test exit 0",
    );
    expect(evidenceCell({ no_changes: "already in a|b.ts", commit: "1a2b3c4" })).toBe("commit 1a2b3c4 · NO_CHANGES: already in a\\|b.ts");
    expect(evidenceCell({})).toBe("");
  });
});
