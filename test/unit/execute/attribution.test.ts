import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { creditChanges, mergeShared, sharedLines, type SessionRecord } from "../../../src/execute/attribution.ts";
import { attemptEvidenceLine, attemptFields, evidenceLine, judgeEvidence, NO_EVIDENCE } from "../../../src/execute/evidence.ts";
import { evidenceCell } from "../../../src/execute/progress.ts";
import { PhaseFiles, repoPath } from "../../../src/execute/task-files.ts";
import { SessionWrites } from "../../../src/session/index.ts";

const session = (task: string, more: Partial<SessionRecord> = {}): SessionRecord => ({
  task,
  files: [],
  shell: [],
  active: { start: 0, end: 100 },
  calls: 1,
  ...more,
});

describe("creditChanges: a parallel task's files", () => {
  it("a file tool's write is its session's task's, whatever else changed while it ran", () => {
    const sessions = [session("task-001", { files: ["src/a.txt"] }), session("task-002", { files: ["src/b.txt"] })];
    const changed = ["src/a.txt", "src/b.txt"];
    expect(creditChanges("task-001", changed, { start: 0, end: 50 }, sessions)).toEqual({
      own: ["src/a.txt"],
      shared: [],
      evidence: ["src/a.txt"],
    });
    expect(creditChanges("task-002", changed, { start: 10, end: 60 }, sessions)).toEqual({
      own: ["src/b.txt"],
      shared: [],
      evidence: ["src/b.txt"],
    });
  });

  it("a written file that is not changed in the tree (written, then restored) is not listed", () => {
    const sessions = [session("task-001", { files: ["src/a.txt", "src/tmp.txt"] }), session("task-002")];
    expect(creditChanges("task-001", ["src/a.txt"], { start: 0, end: 50 }, sessions).own).toEqual(["src/a.txt"]);
  });

  it("a shell change is the task's when only its sessions ran shell commands during its run", () => {
    const sessions = [
      session("task-001", { shell: [{ start: 5, end: 9 }] }),
      session("task-002", { files: ["src/b.txt"], shell: [{ start: 60, end: 70 }] }),
    ];
    expect(creditChanges("task-001", ["gen/out.txt", "src/b.txt"], { start: 0, end: 50 }, sessions)).toEqual({
      own: ["gen/out.txt"],
      shared: [],
      evidence: ["gen/out.txt"],
    });
    // From task-002's run, the one shell that ran meanwhile was task-001's: its change, not task-002's, and not shared.
    expect(creditChanges("task-002", ["gen/out.txt", "src/b.txt"], { start: 0, end: 55 }, sessions)).toEqual({
      own: ["src/b.txt"],
      shared: [],
      evidence: ["src/b.txt"],
    });
  });

  it("a shell change made while several tasks ran shell commands is shared: in no task's own list, evidence of each runner", () => {
    const sessions = [
      session("task-001", { files: ["src/a.txt"], shell: [{ start: 5, end: 30 }] }),
      session("task-002", { shell: [{ start: 10, end: 40 }] }),
      session("task-003", { files: ["src/c.txt"] }),
    ];
    const changed = ["build/one.txt", "build/two.txt", "src/a.txt", "src/c.txt"];
    const shared = [
      { path: "build/one.txt", tasks: ["task-001", "task-002"] },
      { path: "build/two.txt", tasks: ["task-001", "task-002"] },
    ];
    expect(creditChanges("task-001", changed, { start: 0, end: 50 }, sessions)).toEqual({
      own: ["src/a.txt"],
      shared,
      evidence: ["src/a.txt", "build/one.txt", "build/two.txt"],
    });
    expect(creditChanges("task-002", changed, { start: 0, end: 50 }, sessions)).toEqual({
      own: [],
      shared,
      evidence: ["build/one.txt", "build/two.txt"],
    });
    // task-003 ran no shell: the shared changes are listed, but are no evidence of its own.
    expect(creditChanges("task-003", changed, { start: 0, end: 50 }, sessions)).toEqual({
      own: ["src/c.txt"],
      shared,
      evidence: ["src/c.txt"],
    });
  });

  it("a shell window still open (a call that never reported its end) overlaps everything after its start", () => {
    const sessions = [session("task-001", { shell: [{ start: 5 }] }), session("task-002", { shell: [{ start: 80, end: 90 }] })];
    expect(creditChanges("task-002", ["x"], { start: 70, end: 95 }, sessions).shared).toEqual([
      { path: "x", tasks: ["task-001", "task-002"] },
    ]);
  });

  it("a change no tool made: the task's when it ran alone, else shared among the tasks that ran", () => {
    const alone = [session("task-001", { files: ["a"] }), session("task-002", { active: { start: 200, end: 300 } })];
    expect(creditChanges("task-001", ["a", "user.txt"], { start: 0, end: 100 }, alone).own).toEqual(["a", "user.txt"]);
    const together = [session("task-001", { files: ["a"] }), session("task-002", { active: { start: 50 } })];
    expect(creditChanges("task-001", ["a", "user.txt"], { start: 0, end: 100 }, together)).toEqual({
      own: ["a"],
      shared: [{ path: "user.txt", tasks: ["task-001", "task-002"] }],
      evidence: ["a", "user.txt"],
    });
  });

  it("when the hooks recorded no tool call of any session, the snapshot diff stays the task's", () => {
    const sessions = [session("task-001", { calls: 0 }), session("task-002", { calls: 0 })];
    expect(creditChanges("task-001", ["a", "b"], { start: 0, end: 10 }, sessions)).toEqual({
      own: ["a", "b"],
      shared: [],
      evidence: ["a", "b"],
    });
  });
});

describe("the phase's shared changes", () => {
  it("are listed once per path, the tasks of every view joined, without paths a task credited as its own", () => {
    const merged = mergeShared(
      [
        [
          { path: "b", tasks: ["task-001", "task-002"] },
          { path: "y", tasks: ["task-001", "task-002"] },
        ],
        [{ path: "b", tasks: ["task-002", "task-003"] }],
        undefined,
      ],
      [["a"], ["y"], undefined],
    );
    expect(merged).toEqual([{ path: "b", tasks: ["task-001", "task-002", "task-003"] }]);
    expect(
      sharedLines([
        { path: "b", tasks: ["task-001", "task-002"] },
        { path: "c", tasks: ["task-001", "task-002"] },
        { path: "d", tasks: ["task-002", "task-003"] },
      ]),
    ).toEqual(["changed while tasks task-001, task-002 ran: b, c", "changed while tasks task-002, task-003 ran: d"]);
  });

  it("a task with only shared changes is done, and its row counts them without naming them", () => {
    const shared = [{ path: "build/one.txt", tasks: ["task-001", "task-002"] }];
    const verdict = judgeEvidence([], "Built it.", shared);
    expect(verdict).toEqual({ ok: true, evidence: { files: [], shared } });
    expect(judgeEvidence([], "Built it.", [])).toEqual({ ok: false, reason: NO_EVIDENCE });
    if (!verdict.ok) throw new Error("unreachable");
    const fields = attemptFields(verdict.evidence);
    expect(fields).toEqual({ shared_changes: "1 file changed while tasks task-001, task-002 ran (listed in the phase's record)" });
    expect(JSON.stringify(fields)).not.toContain("build/one.txt");
    expect(evidenceCell(fields)).toBe("shared: 1 file changed while tasks task-001, task-002 ran (listed in the phase's record)");
    expect(attemptFields({ files: ["a"], shared })).toEqual({
      changed_files: "a",
      shared_changes: "1 file changed while tasks task-001, task-002 ran (listed in the phase's record)",
    });
    expect(attemptFields({ files: [], noChanges: "done" })).toEqual({ no_changes: "done" });
    expect(attemptEvidenceLine([], verdict, shared)).toBe("no file of its own; changed while tasks task-001, task-002 ran: build/one.txt");
    expect(attemptEvidenceLine(["a"], { ok: true, evidence: { files: ["a"] } })).toBe("changed a");
    expect(attemptEvidenceLine([], { ok: false })).toBe("no file changed");
    expect(evidenceLine({ id: "task-002", shared })).toBe("task-002: changes shared with other tasks (below)");
  });
});

describe("PhaseFiles and repoPath", () => {
  it("names a written file as the snapshots do: repository-relative, through symlinks, nothing outside", async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-attr-")));
    try {
      const root = path.join(dir, "repo");
      fs.mkdirSync(path.join(root, "src"), { recursive: true });
      fs.symlinkSync(root, path.join(dir, "link"));
      fs.writeFileSync(path.join(root, "src/a.txt"), "a");
      expect(await repoPath(root, root, path.join(root, "src/a.txt"))).toBe("src/a.txt");
      expect(await repoPath(root, root, "src/a.txt")).toBe("src/a.txt");
      expect(await repoPath(root, root, path.join(dir, "link/src/a.txt"))).toBe("src/a.txt");
      // Deleted since (or never created): resolved through its nearest existing folder.
      expect(await repoPath(root, root, path.join(dir, "link/src/new/deep.txt"))).toBe("src/new/deep.txt");
      expect(await repoPath(root, root, path.join(dir, "elsewhere.txt"))).toBeUndefined();
      expect(await repoPath(root, root, "../elsewhere.txt")).toBeUndefined();

      // Through the session layer's record: each session under its task, released at the end.
      let now = 0;
      const writes = new SessionWrites(() => now);
      const files = new PhaseFiles(writes, path.join(dir, "link"));
      files.watch("task-001", "s1");
      files.watch("task-002", "s2");
      writes.toolStarted({ tool: "write", sessionID: "s1", callID: "c1" });
      writes.toolFinished({ tool: "write", sessionID: "s1", callID: "c1", args: { filePath: path.join(root, "src/a.txt"), content: "a" } });
      writes.toolStarted({ tool: "apply_patch", sessionID: "s2", callID: "c2" });
      writes.toolFinished({
        tool: "apply_patch",
        sessionID: "s2",
        callID: "c2",
        args: { patchText: "*** Begin Patch\n*** Add File: src/b.txt\n+b\n*** End Patch" },
      });
      now = 10;
      expect(await files.credit("task-001", ["src/a.txt", "src/b.txt"], { start: 0, end: 10 })).toEqual({
        own: ["src/a.txt"],
        shared: [],
        evidence: ["src/a.txt"],
      });
      expect(await files.credit("task-002", ["src/a.txt", "src/b.txt"], { start: 0, end: 10 })).toEqual({
        own: ["src/b.txt"],
        shared: [],
        evidence: ["src/b.txt"],
      });
      files.release();
      expect(writes.activity("s1")).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
