import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useE2E, type Workspace } from "../../support/index.ts";
import { recordFigure } from "../../support/figures.ts";
import { detectSandbox } from "../../../src/sandbox/index.ts";
import { ottoPr, useForges } from "../pr/forges.ts";
import { analysis, fixReview, pushBehindOttosBack, readDoc, summary } from "../pr/fix-script.ts";
import {
  analysisHere,
  checkScript,
  scriptStep,
  fixSession,
  outsideDir,
  readIf,
  toolResults,
  trackedPr,
  useOutsideTmp,
  userGit,
} from "./pr-fix.ts";

/*
 * Code otto did not write (the PR's check script, which otto runs in its sandbox) rewrites what
 * decides what git runs: a nested repository with a `core.fsmonitor` program, a `.git/commondir`
 * that sends git to a planted git directory, a `core.worktree` that makes the sandbox's tree the
 * whole home, a hook in an in-tree hooks folder. Otto's own git (status, rev-parse, fetch) runs
 * outside the sandbox with the forge token: none of it may run what the tree planted, and no
 * sandboxed command may write outside the tree. Every marker "outside" lives under a folder
 * outside /tmp (which the sandbox replaces), so a write from inside the sandbox would land. A
 * gitlink and a `commondir` the check makes are undone right after it (control-watch.ts): the
 * user's own git runs them no more either.
 */

/** A shell line for a planted program: appends the token it sees to $OTTO_E2E_MARKER, else to `marker`. */
const leak = (marker: string): string =>
  `echo "token:$GITHUB_TOKEN by:$(tr "\\\\0" " " < /proc/$PPID/cmdline) under:$(tr "\\\\0" " " < /proc/$(cut -d" " -f4 /proc/$PPID/stat)/cmdline)" >> "\${OTTO_E2E_MARKER:-${marker}}"`;

const verify = ["sh check.sh"];
const FIGURE =
  "git control a hostile tree planted (nested fsmonitor, .git redirects, in-tree hook), run by otto's git or widening the sandbox";

describe.skipIf(detectSandbox().kind === "none")("hostile trees: otto's own git never runs what the tree planted", () => {
  const e2e = useE2E({}, { shareServer: true });
  const forges = useForges();
  const base = useOutsideTmp();

  /** Case 1; `ran` picks the marker lines that count (each names the git that ran the program and the process above it). */
  async function nestedRepository(ran: (line: string) => boolean): Promise<Workspace> {
    const outside = outsideDir(base(), "outside");
    const marker = path.join(outside, "fsmonitor.ran");
    const check = checkScript(
      [
        "if [ ! -d vendor-lib ]; then",
        "  git init -q vendor-lib &&",
        "  git -C vendor-lib -c user.name=x -c user.email=x@example.invalid commit -q --allow-empty -m init &&",
        `  git -C vendor-lib config core.fsmonitor '${leak(marker)}; false' &&`,
        "  git add vendor-lib && echo planted > .build-cache/nested.planted",
        "fi",
      ].join("\n"),
    );
    const { ws, client } = await trackedPr(e2e, forges, { base: base(), verify, files: { "check.sh": check } });
    e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), fixSession([]));

    await ottoPr(client, "fix");
    const lines = (readIf(marker) ?? "").split("\n").filter((l) => l && ran(l));
    recordFigure({ name: FIGURE, tried: 1, through: lines.length > 0 ? 1 : 0 });

    // Positive control: the check ran and planted the nested repository.
    expect(readIf(path.join(ws.project, ".build-cache/nested.planted"))).toBe("planted\n");
    expect(readIf(path.join(ws.project, "vendor-lib/.git/config"))).toContain("fsmonitor");
    // The gitlink the check added was taken out of the index right after it (control-watch.ts):
    // the user's own `git status` no longer descends into the nested repository.
    const control = path.join(outside, "control");
    userGit(ws, ["status", "--porcelain", "--ignore-submodules=none"], { OTTO_E2E_MARKER: control });
    expect(readIf(control), "the user's git ran the planted fsmonitor").toBeUndefined();
    // Otto's git never ran it (it would have written the forge token outside the sandbox).
    expect(lines).toEqual([]);
    return ws;
  }

  /** Index files of OpenCode's snapshot gits written since `since`: its own git did read the tree. */
  const snapshotIndexesSince = (ws: Workspace, since: number): string[] => {
    const dir = path.join(ws.dirs.dataHome, "opencode", "snapshot");
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir, { recursive: true })
      .map(String)
      .filter((p) => path.basename(p) === "index" && fs.statSync(path.join(dir, p)).mtimeMs >= since);
  };

  /** OpenCode's own snapshot git (`--git-dir $XDG_DATA_HOME/opencode/snapshot/…`) is not otto's. */
  const byOpencodeSnapshot = (line: string): boolean => /under:.*--git-dir \S*\/opencode\/snapshot\//.test(line);

  it("a nested repository the check script added, with core.fsmonitor in its config: otto's git status does not run it", async () => {
    await nestedRepository((line) => !byOpencodeSnapshot(line));
  });

  // OpenCode's own snapshot git runs outside the sandbox with the forge token in its environment;
  // otto hands every git OpenCode starts core.fsmonitor=false through the process's environment.
  it("a nested repository's core.fsmonitor runs in no git outside the sandbox, OpenCode's snapshot included", async () => {
    const since = Date.now() - 1000;
    const ws = await nestedRepository(() => true);
    // Positive control: OpenCode's snapshot git ran over the tree during the fix (snapshots are on).
    expect(snapshotIndexesSince(ws, since)).not.toEqual([]);
  });

  it("a .git/commondir the check script pointed at a planted git directory with core.fsmonitor: otto's git does not run it", async () => {
    const outside = outsideDir(base(), "outside");
    const marker = path.join(outside, "fsmonitor.ran");
    const check = checkScript(
      [
        "if [ ! -e .build-cache/g ]; then",
        "  cp -R .git .build-cache/g &&",
        `  git config -f .build-cache/g/config core.fsmonitor '${leak(marker)}; false' &&`,
        '  printf "%s\\n" "$PWD/.build-cache/g" > .git/commondir &&',
        "  echo planted > .build-cache/commondir.planted",
        "fi",
      ].join("\n"),
    );
    const { ws, client } = await trackedPr(e2e, forges, { base: base(), verify, files: { "check.sh": check } });
    e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), fixSession([]));

    await ottoPr(client, "fix");
    recordFigure({ name: FIGURE, tried: 1, through: readIf(marker) === undefined ? 0 : 1 });

    expect(readIf(path.join(ws.project, ".build-cache/commondir.planted"))).toBe("planted\n");
    // The commondir the check wrote was moved into otto's data folder right after it (control-watch.ts).
    expect(fs.existsSync(path.join(ws.project, ".git", "commondir"))).toBe(false);
    const quarantine = path.join(ws.dirs.dataHome, "otto", "quarantine");
    expect(
      fs
        .readdirSync(quarantine, { recursive: true })
        .map(String)
        .some((p) => p.endsWith(path.join(".git", "commondir"))),
    ).toBe(true);
    const control = path.join(outside, "control");
    userGit(ws, ["status", "--porcelain"], { OTTO_E2E_MARKER: control });
    expect(readIf(control), "the user's git ran the planted fsmonitor").toBeUndefined();
    expect(readIf(marker)).toBeUndefined();
  });

  // The sandbox holds a linked worktree's .git file read-only, so the redirect itself fails; the
  // plant before it is the positive control, and had the redirect landed, otto's layout check
  // would refuse the tree before its git ran.
  it("a worktree's .git file the check script pointed at a planted git directory (core.worktree = $HOME, core.fsmonitor): otto's git does not run it, and the sandbox does not reach the user's home", async () => {
    const outside = outsideDir(base(), "outside");
    const marker = path.join(outside, "fsmonitor.ran");
    // The user's files a sandbox widened to the home would let a command write.
    const homeFiles = [".bashrc", ".gitconfig", ".config/opencode/opencode.json"];
    const userFiles: Record<string, string> = {};
    const check = checkScript(
      [
        // Only in a linked worktree (otto's temporary one): its .git is a file in the tree.
        "if [ -f .git ] && [ ! -e .build-cache/g ]; then",
        '  common="$(git rev-parse --path-format=absolute --git-common-dir)" &&',
        '  cp -R "$common" .build-cache/g &&',
        '  cp "$(git rev-parse --path-format=absolute --git-dir)/index" .build-cache/g/index &&',
        "  git rev-parse HEAD > .build-cache/g/HEAD &&",
        '  git config -f .build-cache/g/config core.worktree "$HOME" &&',
        `  git config -f .build-cache/g/config core.fsmonitor '${leak(marker)}; false' &&`,
        // The common git directory (the user's checkout's .git) is writable in the sandbox: the positive control goes there.
        '  echo planted > "$common/otto-e2e.planted"',
        '  printf "gitdir: %s\\n" "$PWD/.build-cache/g" > .git && echo redirected > "$common/otto-e2e.redirected"',
        "fi",
      ].join("\n"),
    );
    const { ws, client } = await trackedPr(e2e, forges, {
      base: base(),
      verify,
      files: { "check.sh": check },
      prepare: (w) => {
        // Added to what the developer's home holds (its ~/.gitconfig gives otto's commits their identity).
        for (const f of homeFiles) {
          fs.mkdirSync(path.dirname(path.join(w.dirs.home, f)), { recursive: true });
          fs.appendFileSync(path.join(w.dirs.home, f), `# the user's ${f}\n`);
          userFiles[f] = fs.readFileSync(path.join(w.dirs.home, f), "utf8");
        }
      },
    });
    // The user's unfinished work: otto fixes in a temporary worktree, whose .git is a file in the tree.
    fs.writeFileSync(path.join(ws.project, "notes-of-the-user.md"), "unfinished\n");
    // The fix session's next command (sandboxed after the redirect) writes to the home.
    const write = [
      ...homeFiles.map((f) => `echo "# written by the session" >> "$HOME/${f}" 2>/dev/null && echo "wrote ~/${f}"`),
      "echo session script ran",
    ];
    e2e.model.script(
      fixReview("APPROVE"),
      analysisHere(summary("code: add() subtracts")),
      fixSession([scriptStep(`${write.join("\n")}\n`, "call_home")]),
    );

    await ottoPr(client, "fix");
    const homeWritten = homeFiles.filter((f) => fs.readFileSync(path.join(ws.dirs.home, f), "utf8") !== userFiles[f]);
    recordFigure({ name: FIGURE, tried: 1, through: homeWritten.length > 0 || readIf(marker) !== undefined ? 1 : 0 });

    // Positive controls: the check planted the git directory; the session's command ran.
    expect(readIf(path.join(ws.project, ".git", "otto-e2e.planted"))).toBe("planted\n");
    // The redirect did not land: the worktree's .git file is read-only inside the sandbox.
    expect(readIf(path.join(ws.project, ".git", "otto-e2e.redirected"))).toBeUndefined();
    const ran = toolResults(e2e)[0] ?? "";
    expect(ran).toContain("session script ran");
    for (const f of homeFiles) expect(fs.readFileSync(path.join(ws.dirs.home, f), "utf8"), f).toBe(userFiles[f]);
    // A write to $HOME inside lands in the sandbox's own empty home, never in the user's (checked above).
    expect(readIf(marker)).toBeUndefined();
  });

  it("a reference-transaction hook in the in-tree hooks folder (husky's .husky/_ as core.hooksPath) does not run on otto's fetch", async () => {
    const outside = outsideDir(base(), "outside");
    const marker = path.join(outside, "hook.ran");
    const hook = `#!/bin/sh\ncat > /dev/null\n${leak(marker)}\n`;
    const { ws, client } = await trackedPr(e2e, forges, {
      base: base(),
      files: { ".husky/_/reference-transaction": hook, ".husky/pre-commit": "npm test\n" },
      prepare: async (w) => {
        fs.chmodSync(path.join(w.project, ".husky/_/reference-transaction"), 0o755);
        await w.repo.git(["commit", "-qam", "Hooks are executable"]);
        await w.repo.git(["push", "-q", "origin", "HEAD"]);
        // The user's husky setup: git runs the hooks of the tree's .husky/_.
        await w.repo.git(["config", "core.hooksPath", ".husky/_"]);
      },
    });
    // Someone pushes to the PR while the fix session works: otto's fetch before its push updates the remote-tracking ref.
    e2e.model.script(
      fixReview("APPROVE"),
      analysis(ws, summary("code: add() subtracts")),
      fixSession([], { before: () => pushBehindOttosBack(ws, "docs/notes.md", "other work\n") }),
    );

    await ottoPr(client, "fix");
    recordFigure({ name: FIGURE, tried: 1, through: readIf(marker) === undefined ? 0 : 1 });

    // Positive control: otto fetched the moved branch (its fix landed on top of the other commit).
    const log = await ws.repo.remoteLog("feature/1");
    expect(log.map((c) => c.subject).slice(0, 2)).toEqual([expect.stringMatching(/add/i), "Other change"]);
    // The hook is live: the user's own fetch of a moved branch runs it.
    pushBehindOttosBack(ws, "docs/more.md", "more\n");
    const control = path.join(outside, "control");
    userGit(ws, ["fetch", "-q", "origin", "+refs/heads/feature/1:refs/remotes/origin/feature/1"], { OTTO_E2E_MARKER: control });
    expect(readIf(control), "the hook is live").toMatch(/token:/);
    expect(readIf(marker)).toBeUndefined();
    expect(readDoc(ws)).toBeDefined();
  });
});
