import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CheckResult } from "../../../src/workspace/checks.ts";
import type { ChangeSet } from "../../../src/workspace/detect-weakened-checks.ts";
import { runGit } from "../../../src/workspace/git.ts";
import { judgeRestoredChecks, namedLine, restoredNote, touchedCheckFiles } from "../../../src/workspace/restored-checks.ts";
import { snapshotTree } from "../../../src/workspace/snapshot.ts";
import { codePlaces } from "../../../src/workspace/dependency-bins.ts";
import { createRepo, gitEnv, type Repo } from "../../support/git.ts";

/*
 * restored-checks.ts read directly and fast: its pure parts, and the judge on tiny repositories
 * whose check is a line of shell run without a sandbox (restored-checks.test.ts runs real projects
 * in the real sandbox, tens of seconds). The check passes when code.txt says "fixed", or when the
 * test file a.test.js says "lenient": a fix that only makes the test lenient passes where it was
 * made and fails with the PR's a.test.js restored.
 */

const ENV = gitEnv();
const CHECK = 'grep -q lenient a.test.js || grep -q fixed code.txt || { echo "still broken"; exit 3; }';
const FILES = {
  "package.json": JSON.stringify({ name: "app", private: true, scripts: { test: "sh check.sh" } }) + "\n",
  "check.sh": `${CHECK}\n`,
  "code.txt": "broken\n",
  "a.test.js": "strict\n",
  ".gitignore": "node_modules/\n.env\n",
  "docs/readme.md": "docs\n",
};

let repo: Repo | undefined;
let temp: string | undefined;
afterEach(() => {
  repo?.cleanup();
  repo = undefined;
  if (temp) fs.rmSync(temp, { recursive: true, force: true });
  temp = undefined;
});

const result = (command: string, passed: boolean, extra: Partial<CheckResult> = {}): CheckResult => ({
  command,
  exitCode: passed ? 0 : 1,
  passed,
  timedOut: false,
  durationMs: 1,
  output: "",
  ...extra,
});

async function judgeFix(
  fix: (dir: string) => Promise<void> | void,
  options: {
    causeFiles?: string[];
    commands?: string[];
    fixed?: CheckResult[];
    before?: (dir: string) => void;
    at?: string;
    timeoutMs?: number;
    quiet?: boolean;
    secrets?: string[];
    signal?: AbortSignal;
  } = {},
) {
  repo = await createRepo({ remote: false, files: FILES });
  options.before?.(repo.dir);
  const since = await repo.git(["rev-parse", "HEAD"]);
  const git = (args: readonly string[], o: { cwd: string }) => runGit(args, { ...o, env: ENV });
  const baseline = await snapshotTree(git, repo.dir);
  await fix(repo.dir);
  const commands = options.commands ?? ["sh check.sh"];
  temp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-restored-direct-")));
  const told: string[] = [];
  const judged = await judgeRestoredChecks({
    dir: options.at ? path.join(repo.dir, options.at) : repo.dir,
    since,
    baseline,
    env: ENV,
    causeFiles: options.causeFiles ?? [],
    commands,
    fixed: options.fixed ?? commands.map((c) => result(c, true)),
    timeoutMs: options.timeoutMs ?? 30_000,
    sandbox: "off",
    ...(options.quiet ? {} : { progress: (m: string) => told.push(m) }),
    tempRoot: temp,
    ...(options.secrets ? { secrets: options.secrets } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { judged, told, dir: repo.dir };
}

const write = (dir: string, file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
};

describe("judgeRestoredChecks (fast, no sandbox)", () => {
  it("a test made lenient: fails with the PR's test restored, says which file and how the check ended; the scratch copy is gone", async () => {
    const { judged, told } = await judgeFix((dir) => write(dir, "a.test.js", "lenient\n"));
    expect(judged).toMatchObject({
      kind: "failed",
      restored: ["a.test.js"],
      named: [],
      detail:
        "the checks pass only with the fix's own changes to a.test.js: with the PR's versions of that file restored, `sh check.sh` exit 3",
    });
    if (judged.kind === "failed")
      expect(judged.results.map((r) => [r.command, r.passed, r.output.trim()])).toEqual([["sh check.sh", false, "still broken"]]);
    expect(told).toEqual(["the fix changed a.test.js: running the checks again with the PR's versions restored"]);
    expect(fs.readdirSync(temp!)).toEqual([]);
    expect(await repo!.git(["worktree", "list", "--porcelain"])).not.toContain("otto-checks");
  });

  it("the scratch copy is otto's worktree under the temp folder given; a variable holding a secret is blanked for the check; no progress callback is needed", async () => {
    const { judged } = await judgeFix((dir) => write(dir, "a.test.js", "lenient\n"), {
      commands: ['echo "in $PWD global [$GIT_CONFIG_GLOBAL]"; sh check.sh'],
      secrets: [os.devNull],
      quiet: true,
    });
    expect(judged.kind).toBe("failed");
    const output = judged.kind === "failed" ? (judged.results[0]?.output ?? "") : "";
    expect(output).toContain(`in ${temp}/otto-checks-`);
    expect(ENV.GIT_CONFIG_GLOBAL).toBe(os.devNull);
    expect(output).toContain("global []");
  });

  it("an aborted flow runs no check: nothing failed", async () => {
    const { judged } = await judgeFix((dir) => write(dir, "a.test.js", "lenient\n"), { signal: AbortSignal.abort() });
    expect(judged).toEqual({ kind: "passed", restored: ["a.test.js"], named: [], results: [] });
  });

  it("the fix's other changes are in the copy: a deleted file is gone, a new one is there", async () => {
    const { judged } = await judgeFix(
      (dir) => {
        write(dir, "a.test.js", "strict\nlenient\n");
        fs.rmSync(path.join(dir, "docs", "readme.md"));
        write(dir, "code.txt", "fixed\n");
        write(dir, "src/new.txt", "new\n");
      },
      { commands: ["[ ! -e docs/readme.md ] && [ -f src/new.txt ] || exit 9; sh check.sh"] },
    );
    expect(judged).toMatchObject({ kind: "passed", restored: ["a.test.js"] });
  });

  it("an honest fix that also changes the test passes with it restored; the fix's other changes are in the copy", async () => {
    const { judged } = await judgeFix((dir) => {
      write(dir, "code.txt", "fixed\n");
      write(dir, "a.test.js", "strict, and more\n");
    });
    expect(judged).toMatchObject({ kind: "passed", restored: ["a.test.js"], named: [] });
  });

  it("the check script deleted, the test renamed away: both restored (plural), the run judged", async () => {
    const { judged } = await judgeFix(async (dir) => {
      write(dir, "code.txt", "fixed\n");
      fs.rmSync(path.join(dir, "check.sh"));
      await repo!.git(["mv", "a.test.js", "a.test.js.off"]);
    });
    expect(judged.kind).toBe("passed");
    expect(judged.kind !== "untouched" && judged.restored).toEqual(["a.test.js", "check.sh"]);
  });

  it("two restored files, a check failing: the detail speaks of those files and names each failed check; one timed out says so", async () => {
    const { judged } = await judgeFix(
      (dir) => {
        write(dir, "a.test.js", "lenient\n");
        write(dir, "check.sh", `${CHECK}\n# changed\n`);
      },
      { commands: ["sh check.sh", "true", "sleep 5"], timeoutMs: 300 },
    );
    expect(judged.kind).toBe("failed");
    if (judged.kind === "failed")
      expect(judged.detail).toBe(
        "the checks pass only with the fix's own changes to a.test.js, check.sh: with the PR's versions of those files restored, `sh check.sh` exit 3, `sleep 5` timed out",
      );
  });

  it("a file the analysis named keeps the fix's version and is reported as named", async () => {
    const { judged, told } = await judgeFix((dir) => write(dir, "a.test.js", "lenient\n"), { causeFiles: ["./a.test.js"] });
    expect(judged).toEqual({ kind: "untouched", named: ["a.test.js"] });
    expect(told).toEqual([]);
  });

  it("a fix of the code alone runs nothing; with no checks to run, a changed test is unchecked", async () => {
    expect((await judgeFix((dir) => write(dir, "code.txt", "fixed\n"))).judged).toEqual({ kind: "untouched", named: [] });
    const { judged, told } = await judgeFix((dir) => write(dir, "a.test.js", "lenient\n"), { commands: [] });
    expect(judged).toEqual({ kind: "unchecked", restored: ["a.test.js"], named: [] });
    expect(told).toEqual([]);
  });

  it("a check that failed on the fixed tree too and fails the same way is no reason", async () => {
    const { judged } = await judgeFix((dir) => write(dir, "a.test.js", "lenient\n"), {
      commands: ["sh check.sh"],
      fixed: [result("sh check.sh", false, { exitCode: 3, output: "still broken\n" })],
    });
    expect(judged.kind).toBe("passed");
  });

  it("judged from a folder inside the tree: the tree's top is used", async () => {
    const { judged } = await judgeFix((dir) => write(dir, "a.test.js", "lenient\n"), { at: "docs" });
    expect(judged).toMatchObject({ kind: "failed", restored: ["a.test.js"], named: [] });
    // An honest fix judged from there: the whole tree's changes are in the copy.
    const honest = await judgeFix(
      (dir) => {
        write(dir, "code.txt", "fixed\n");
        write(dir, "a.test.js", "strict, and more\n");
      },
      { at: "docs" },
    );
    expect(honest.judged).toMatchObject({ kind: "passed", restored: ["a.test.js"] });
  });

  it("a new test the fix added is left out of the copy; new check configuration is restored as absent", async () => {
    // The added test would make the check pass if it ran there (it rewrites the PR's test).
    const addedTest = await judgeFix((dir) => {
      write(dir, "b.test.js", "lenient\n");
      write(dir, "check.sh", `[ -f b.test.js ] && exit 0\n${CHECK}\n`);
    });
    expect(addedTest.judged).toMatchObject({ kind: "failed", restored: ["check.sh"] });
    const npmrc = await judgeFix((dir) => {
      write(dir, ".npmrc", "lenient\n");
      write(dir, "code.txt", "fixed\n");
    });
    expect(npmrc.judged).toMatchObject({ kind: "passed", restored: [".npmrc"] });
    // The check itself looks for the added test: absent in the copy, so the restored test decides.
    const added = await judgeFix(
      (dir) => {
        write(dir, "b.test.js", "x\n");
        write(dir, "a.test.js", "lenient\n");
      },
      { commands: ["[ -f b.test.js ] && exit 0; sh check.sh"] },
    );
    expect(added.judged).toMatchObject({ kind: "failed", restored: ["a.test.js"] });
    // A test renamed to another test's name: the old one restored, the new name absent in the copy.
    const renamed = await judgeFix(async () => void (await repo!.git(["mv", "a.test.js", "b.test.js"])), {
      commands: ["[ -f b.test.js ] && exit 0; sh check.sh"],
    });
    expect(renamed.judged).toMatchObject({ kind: "failed", restored: ["a.test.js"] });
    // New configuration the analysis named as the cause stays in the copy, with the fix's content.
    const named = await judgeFix(
      (dir) => {
        write(dir, ".npmrc", "lenient\n");
        write(dir, "a.test.js", "strict, reworded\n");
      },
      { causeFiles: [".npmrc"], commands: ["grep -q lenient .npmrc && exit 0; sh check.sh"] },
    );
    expect(named.judged).toMatchObject({ kind: "passed", restored: ["a.test.js"], named: [".npmrc"] });
  });

  it("a file a package.json's check script names, there before or only after the fix, in a nested package too", async () => {
    // package.json no longer names check.sh after the fix: its version before the fix still counts.
    const before = await judgeFix((dir) => {
      write(dir, "check.sh", "exit 0\n");
      write(dir, "package.json", JSON.stringify({ name: "app", scripts: { test: "true" } }));
    });
    expect(before.judged).toMatchObject({ kind: "failed", restored: ["check.sh", "package.json"] });
    // A file that is not a package.json names no script file, whatever it holds.
    const other = await judgeFix(
      (dir) => {
        write(dir, "package.json.bak", JSON.stringify({ scripts: { test: "sh tool.sh" } }));
        write(dir, "tool.sh", "exit 0\n");
      },
      { commands: [] },
    );
    expect(other.judged).toEqual({ kind: "untouched", named: [] });
    const nested = await judgeFix(
      (dir) => {
        write(dir, "sub/package.json", JSON.stringify({ scripts: { lint: "sh verify.sh" } }));
        write(dir, "sub/verify.sh", "exit 0\n");
      },
      { commands: [] },
    );
    expect(nested.judged).toMatchObject({ kind: "unchecked", restored: ["sub/package.json", "sub/verify.sh"] });
  });

  it("ignored dependencies and settings are linked into the copy, not copied; a changed .bin program refuses the fix outright", async () => {
    // Exit 7 when .env is not a link to the tree's own: the restored test's exit 3 shows it was.
    const linked = await judgeFix((dir) => write(dir, "a.test.js", "lenient\n"), {
      before: (dir) => {
        write(dir, ".env", "ok\n");
        write(dir, "node_modules/dep/index.js", "x\n");
      },
      commands: ['[ -L .env ] && [ "$(cat .env)" = ok ] && [ -L node_modules ] && [ -f node_modules/dep/index.js ] || exit 7; sh check.sh'],
    });
    expect(linked.judged.kind === "failed" && linked.judged.detail).toMatch(/sh check\.sh` exit 3$/);
    const bins = await judgeFix((dir) => write(dir, "node_modules/.bin/node", "#!/bin/sh\nexit 0\n"), {
      before: (dir) => write(dir, "node_modules/.bin/node", '#!/bin/sh\nexec /usr/bin/node "$@"\n'),
    });
    expect(bins.judged).toEqual({
      kind: "failed",
      restored: [],
      named: [],
      results: [],
      detail:
        "node_modules/, node_modules/.bin/node changed while the session ran: the checks would run programs of the fix's own making, so otto does not trust their result",
    });
  });
});

describe("ignored places the checks load code from (dependency-bins.ts)", () => {
  const before = (dir: string) => {
    write(dir, ".git/info/exclude", ".venv/\n.pnp.cjs\n");
    write(dir, ".venv/lib/site-packages/dep.py", "x = 1\n");
    write(dir, ".venv/lib/site-packages/__pycache__/dep.pyc", "old\n");
    write(dir, ".pnp.cjs", "module.exports = {};\n");
  };

  it("a .pth in the virtual environment or a changed .pnp.cjs refuses the fix; the environment's bytecode is no reason", async () => {
    const pth = await judgeFix((dir) => write(dir, ".venv/lib/site-packages/evil.pth", "import os\n"), { before });
    expect(pth.judged.kind === "failed" && pth.judged.detail).toMatch(/^\.venv\/ changed while the session ran/);
    const pnp = await judgeFix((dir) => write(dir, ".pnp.cjs", "module.exports = { evil: 1 };\n"), { before });
    expect(pnp.judged.kind === "failed" && pnp.judged.detail).toMatch(/^\.pnp\.cjs changed while the session ran/);
    const bytecode = await judgeFix((dir) => write(dir, ".venv/lib/site-packages/__pycache__/dep.pyc", "new, longer\n"), { before });
    expect(bytecode.judged).toEqual({ kind: "untouched", named: [] });
  });

  it("codePlaces: virtual environments, .yarn and Plug'n'Play files at any depth, sorted; nothing else", () => {
    expect(
      codePlaces(["z/.pnp.loader.mjs", ".venv/", "node_modules/", "py/venv/", ".yarn/", ".env", "venv.txt", "a/.pnp.cjs", "my.venv/"]),
    ).toEqual([".venv/", ".yarn/", "a/.pnp.cjs", "py/venv/", "z/.pnp.loader.mjs"]);
  });
});

describe("the pure parts", () => {
  const change = (files: ChangeSet["files"]): ChangeSet => ({ files, diff: "", contents: {} });

  it("touchedCheckFiles: modified, deleted and renamed-away tests and new configuration count; a new test does not; cause files are named", () => {
    const files = [
      { path: "src/a.test.ts", status: "modified" },
      { path: "src/b.test.ts", status: "deleted" },
      { path: "src/c.test.ts.off", from: "src/c.test.ts", status: "renamed" },
      { path: "src/new.test.ts", status: "added" },
      { path: ".npmrc", status: "added" },
      { path: "src/code.ts", status: "modified" },
      { path: "scripts/check.sh", status: "added" },
      { path: "tests/moved.py", from: "src/code2.py", status: "renamed" },
    ] as ChangeSet["files"];
    expect(touchedCheckFiles(change(files), new Set(["scripts/check.sh"]), ["`src/a.test.ts:12`", ""])).toEqual({
      restored: [".npmrc", "scripts/check.sh", "src/b.test.ts", "src/c.test.ts"],
      named: ["src/a.test.ts"],
    });
    expect(touchedCheckFiles(change([]), new Set(), [])).toEqual({ restored: [], named: [] });
  });

  it("restoredNote: the checks' failing output, its end only, and what to do; refused dependencies say to reinstall them", () => {
    const failed = {
      kind: "failed" as const,
      restored: ["a.test.js"],
      named: [],
      detail: "the checks pass only with …",
      results: [
        result("npm test", false, { exitCode: 1, output: `${"x".repeat(4000)}END` }),
        result("npm run lint", true, { output: "lint ok" }),
      ],
    };
    const note = restoredNote(failed);
    expect(note.split("\n").slice(0, 3)).toEqual([
      "Otto refused the previous session's fix: the checks pass only with ….",
      "Otto ran the project's checks with the PR's own versions of a.test.js and they failed:",
      "$ npm test (exit 1)",
    ]);
    expect(note).toContain(`\n${"x".repeat(2997)}END\nThose changes are still in the working tree:`);
    expect(note).not.toContain("x".repeat(2998));
    expect(note).not.toContain("lint ok");
    expect(note.endsWith("fix the cause in the code under test.")).toBe(true);
    expect(restoredNote({ ...failed, results: [], detail: "node_modules/.bin/node changed" })).toBe(
      "Otto refused the previous session's fix: node_modules/.bin/node changed. Put the dependencies back as they were (reinstall them with the project's lockfile) and fix the cause in the code under test; do not add or change programs under node_modules.",
    );
    const two = restoredNote({
      ...failed,
      results: [result("a", false, { exitCode: 2, output: "A" }), result("b", false, { exitCode: 5, output: "B" })],
    });
    expect(two).toContain("$ a (exit 2)\nA\n\n$ b (exit 5)\nB\n");
  });

  it("namedLine: none for no file, the files up to ten and a count of the rest, by whom", () => {
    expect(namedLine([])).toBeUndefined();
    expect(namedLine(["a.test.js"])).toBe("Changes tests or check configuration the failure analysis named as the cause: a.test.js.");
    const twelve = Array.from({ length: 12 }, (_, i) => `t${i}.test.js`);
    expect(namedLine(twelve, "the reviewer")).toBe(
      `Changes tests or check configuration the reviewer named as the cause: ${twelve.slice(0, 10).join(", ")} and 2 more.`,
    );
    expect(namedLine(twelve.slice(0, 10))).toBe(
      `Changes tests or check configuration the failure analysis named as the cause: ${twelve.slice(0, 10).join(", ")}.`,
    );
  });
});
