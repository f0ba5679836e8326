import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  detectWeakenedChecks,
  judgeRestoredChecks,
  readChangeSet,
  runChecks,
  runGit,
  snapshotTree,
  type GitRun,
} from "../../../src/workspace/index.ts";
import { gitEnv } from "../../support/git.ts";
import { clone } from "../repo/fixtures.ts";

/*
 * A fix is judged against the PR's own checks (real git, the real sandbox, tiny real projects
 * whose test fails until the code is fixed): each way of turning the check green without fixing
 * the code passes the checks where it was made and fails them once the PR's own tests and check
 * configuration are restored in a scratch copy; an honest fix of the code passes both.
 */

const run: GitRun = (args, options) => runGit(args, { ...options, env: gitEnv() });
/** npm runs the checks: no update check over the network. */
const ENV = gitEnv({ npm_config_update_notifier: "false" });
const BROKEN = "exports.add = (a, b) => a - b;\n";
const FIXED = "exports.add = (a, b) => a + b;\n";
const TEST = 'const assert = require("assert");\nconst { add } = require("./math.js");\nassert.strictEqual(add(1, 2), 3);\n';

/** Finds *.test.js outside node_modules/ and fixtures/, requires each, fails when one throws (no tests: passes, like --passWithNoTests). */
const RUNNER = `const fs = require("fs");
const path = require("path");
const found = [];
(function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name === "fixtures" || e.name.startsWith(".")) continue;
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith(".test.js")) found.push(p);
  }
})(process.cwd());
let failed = 0;
for (const f of found) {
  try { require(path.resolve(f)); console.log("ok", f); } catch (e) { failed++; console.log("FAIL", f, e.message); }
}
process.exit(failed ? 1 : 0);
`;

const PROJECTS = {
  runner: {
    "package.json": JSON.stringify({ name: "app", private: true, scripts: { test: "node run-tests.js" } }, null, 2) + "\n",
    "run-tests.js": RUNNER,
    "math.js": BROKEN,
    "math.test.js": TEST,
  },
  nodeTest: {
    "package.json": JSON.stringify({ name: "app", private: true, scripts: { test: "node --test" } }, null, 2) + "\n",
    "math.js": BROKEN,
    "test.js":
      'const test = require("node:test");\nconst assert = require("assert");\ntest("add", () => assert.strictEqual(require("./math.js").add(1, 2), 3));\n',
  },
  exit: {
    "package.json": JSON.stringify({ name: "app", private: true, scripts: { test: "node test.js" } }, null, 2) + "\n",
    "math.js": BROKEN,
    "test.js":
      'const { add } = require("./math.js");\nif (add(1, 2) !== 3) {\n  console.error("add(1, 2) is not 3");\n  process.exit(1);\n}\nconsole.log("ok");\n',
  },
  python: {
    "math_ops.py": "def add(a, b):\n    return a - b\n",
    "tests.py":
      "import unittest\nfrom math_ops import add\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n",
  },
} satisfies Record<string, Record<string, string>>;

const NPM = ["npm test"];
const PYTHON = ["python3 -m unittest"];

async function judge(
  project: Record<string, string>,
  commands: string[],
  fix: (dir: string, git: (args: string[]) => Promise<string>) => Promise<void>,
  causeFiles: string[] = [],
  prepare?: (dir: string) => void,
) {
  const repo = await clone(project);
  prepare?.(repo.dir);
  const since = await repo.git(["rev-parse", "HEAD"]);
  const baseline = await snapshotTree(run, repo.dir);
  const options = { cwd: repo.dir, timeoutMs: 60_000, env: ENV, sandbox: "required" as const };
  const before = await runChecks(commands, options);
  expect(before.every((r) => !r.passed)).toBe(true);
  await fix(repo.dir, (args) => repo.git(args));
  // The flow's own run on the fixed tree: the weakening works there.
  const fixed = await runChecks(commands, options);
  const judged = await judgeRestoredChecks({
    dir: repo.dir,
    since,
    baseline,
    env: ENV,
    causeFiles,
    commands,
    fixed,
    timeoutMs: 60_000,
    sandbox: "required",
  });
  const change = await readChangeSet({ dir: repo.dir, since, baseline, env: gitEnv() });
  return { judged, fixed, repo, patterns: detectWeakenedChecks(change) };
}

const write = (dir: string, file: string, content: string): void => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), content);
};

describe("each spelling of weakening the checks fails the PR's own checks, restored", () => {
  it("git mv math.test.js math.test.js.disabled (also flagged by the patterns as a deleted test)", async () => {
    const { judged, fixed, patterns } = await judge(
      PROJECTS.runner,
      NPM,
      async (_dir, git) => void (await git(["mv", "math.test.js", "math.test.js.disabled"])),
    );
    expect(fixed[0]?.passed).toBe(true);
    expect(judged.kind).toBe("failed");
    expect(judged.kind === "failed" && judged.restored).toEqual(["math.test.js"]);
    expect(judged.kind === "failed" && judged.detail).toContain("`npm test` exit 1");
    expect(patterns.map((p) => `${p.path}: ${p.kind}`)).toContain("math.test.js: test_deleted");
  });

  it("the test moved under a folder the runner skips", async () => {
    const { judged, fixed } = await judge(PROJECTS.runner, NPM, async (dir, git) => {
      fs.mkdirSync(path.join(dir, "fixtures"));
      await git(["mv", "math.test.js", "fixtures/math.test.js"]);
    });
    expect(fixed[0]?.passed).toBe(true);
    expect(judged.kind).toBe("failed");
    expect(judged.kind === "failed" && judged.restored).toEqual(["math.test.js"]);
  });

  it("an .npmrc with script-shell=/bin/true", async () => {
    // The project's own .npmrc (tracked, so the sandbox shows it): the fix adds the line to it.
    const project = { ...PROJECTS.runner, ".npmrc": "fund=false\n" };
    const { judged, fixed, repo } = await judge(project, NPM, async (dir) => write(dir, ".npmrc", "fund=false\nscript-shell=/bin/true\n"));
    expect(fixed[0]?.passed).toBe(true);
    expect(judged.kind).toBe("failed");
    expect(judged.kind === "failed" && judged.restored).toEqual([".npmrc"]);
    // The fixed tree is as the fix left it.
    expect(fs.readFileSync(path.join(repo.dir, ".npmrc"), "utf8")).toBe("fund=false\nscript-shell=/bin/true\n");
  });

  it("a new, untracked .npmrc is not even read where the fix made it: the sandbox hides it (it may hold a registry token)", async () => {
    const { fixed } = await judge(PROJECTS.runner, NPM, async (dir) => write(dir, ".npmrc", "script-shell=/bin/true\n"));
    expect(fixed[0]?.passed).toBe(false);
  });

  it("the root test.js that `node --test` runs, deleted", async () => {
    const { judged, fixed } = await judge(PROJECTS.nodeTest, NPM, async (dir) => fs.rmSync(path.join(dir, "test.js")));
    expect(fixed[0]?.passed).toBe(true);
    expect(judged.kind).toBe("failed");
    expect(judged.kind === "failed" && judged.restored).toEqual(["test.js"]);
  });

  it("tests.py deleted", async () => {
    const { judged, fixed } = await judge(PROJECTS.python, PYTHON, async (dir) => fs.rmSync(path.join(dir, "tests.py")));
    expect(fixed[0]?.passed).toBe(true);
    expect(judged.kind).toBe("failed");
    expect(judged.kind === "failed" && judged.restored).toEqual(["tests.py"]);
  });

  it("process.exit(1) taken out of the test the test script runs", async () => {
    const { judged, fixed } = await judge(PROJECTS.exit, NPM, async (dir) =>
      write(dir, "test.js", PROJECTS.exit["test.js"].replace("  process.exit(1);\n", "")),
    );
    expect(fixed[0]?.passed).toBe(true);
    expect(judged.kind).toBe("failed");
    expect(judged.kind === "failed" && judged.restored).toEqual(["test.js"]);
  });
});

describe("the controls", () => {
  it("an honest fix of the code that also adds a test case passes with the PR's test restored", async () => {
    // The user's ignored files, linked into the scratch copy: still there afterwards.
    const ignored = (dir: string): void => {
      write(dir, ".git/info/exclude", "node_modules/\n.env\n");
      write(dir, "node_modules/dep/index.js", "module.exports = 1;\n");
      write(dir, ".env", "TOKEN=mine\n");
    };
    const { judged, fixed, repo } = await judge(
      PROJECTS.runner,
      NPM,
      async (dir) => {
        write(dir, "math.js", FIXED);
        write(dir, "math.test.js", `${TEST}assert.strictEqual(add(2, 2), 4);\n`);
      },
      [],
      ignored,
    );
    expect(fixed[0]?.passed).toBe(true);
    expect(judged).toMatchObject({ kind: "passed", restored: ["math.test.js"], named: [] });
    // The scratch copy is gone; the fixed tree and the ignored files are untouched.
    expect(fs.readFileSync(path.join(repo.dir, "math.test.js"), "utf8")).toContain("add(2, 2)");
    expect(fs.readFileSync(path.join(repo.dir, "node_modules/dep/index.js"), "utf8")).toBe("module.exports = 1;\n");
    expect(fs.readFileSync(path.join(repo.dir, ".env"), "utf8")).toBe("TOKEN=mine\n");
    expect(await repo.git(["worktree", "list", "--porcelain"])).not.toContain("otto-checks");
  });

  it("a fix of the code alone runs nothing more; a test the analysis named keeps the fix's version and is reported", async () => {
    const plain = await judge(PROJECTS.exit, NPM, async (dir) => write(dir, "math.js", FIXED));
    expect(plain.judged).toEqual({ kind: "untouched", named: [] });
    const named = await judge(PROJECTS.exit, NPM, async (dir) => write(dir, "test.js", "console.log('rewritten');\n"), ["`test.js`"]);
    expect(named.judged).toEqual({ kind: "untouched", named: ["test.js"] });
  });
});

describe("the scratch copy writes nothing outside it", () => {
  it("the PR's head has plug -> a folder outside; the fix makes plug a folder holding evil.js: the copy puts it in the scratch tree only", async () => {
    const cache = path.join(os.homedir(), ".cache");
    fs.mkdirSync(cache, { recursive: true });
    const victim = fs.mkdtempSync(path.join(cache, "otto-test-plugins-"));
    try {
      fs.writeFileSync(path.join(victim, "mine.js"), "the user's plugin\n");
      const commands = ["cat plug/evil.js", ...NPM];
      const { judged, fixed, repo } = await judge(
        PROJECTS.runner,
        commands,
        async (dir, git) => {
          fs.rmSync(path.join(dir, "plug"));
          write(dir, "plug/evil.js", "console.log('ran outside');\n");
          await git(["mv", "math.test.js", "math.test.js.disabled"]);
        },
        [],
        (dir) => {
          fs.symlinkSync(victim, path.join(dir, "plug"));
          execFileSync("git", ["add", "plug"], { cwd: dir, env: gitEnv() });
          execFileSync("git", ["commit", "-qm", "a link"], {
            cwd: dir,
            env: gitEnv({ GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" }),
          });
        },
      );
      // The hostile step ran: the PR's head holds the link, the fixed tree the folder, and the restored run read evil.js.
      expect(await repo.git(["ls-tree", "HEAD~0", "plug"])).toMatch(/^120000 /);
      expect(fs.lstatSync(path.join(repo.dir, "plug")).isDirectory()).toBe(true);
      expect(fixed[0]?.passed).toBe(true);
      // Nothing reached the folder the link named.
      expect(fs.readdirSync(victim)).toEqual(["mine.js"]);
      expect(fs.readFileSync(path.join(victim, "mine.js"), "utf8")).toBe("the user's plugin\n");
      expect(judged.kind).toBe("failed");
      expect(judged.kind === "failed" && judged.results[0]?.output).toContain("ran outside");
    } finally {
      fs.rmSync(victim, { recursive: true, force: true });
    }
  });
});

describe("the restored run uses the environment from before the fix", () => {
  /** Runs every *.test.js in name order, as mocha and most runners do. */
  const SORTED = {
    ...PROJECTS.runner,
    "run-tests.js": RUNNER.replace("let failed = 0;", "found.sort();\nlet failed = 0;"),
  };

  it("an added test that rewrites the PR's test at run time does not run there", async () => {
    const { judged, fixed, repo } = await judge(SORTED, NPM, async (dir) =>
      write(dir, "aaa.test.js", 'require("fs").writeFileSync(require("path").join(__dirname, "math.test.js"), "console.log(1);\\n");\n'),
    );
    // The hostile step ran: the flow's own run rewrote the PR's test and passed with the code still broken.
    expect(fs.readFileSync(path.join(repo.dir, "math.test.js"), "utf8")).toBe("console.log(1);\n");
    expect(fs.readFileSync(path.join(repo.dir, "math.js"), "utf8")).toBe(BROKEN);
    expect(fixed[0]?.passed).toBe(true);
    expect(judged.kind).toBe("failed");
    expect(judged.kind === "failed" && judged.restored).toEqual(["math.test.js"]);
  });

  it("a node_modules/.bin/node stub the fix planted: refused, naming it; an unchanged .bin is no reason (the control)", async () => {
    const deps = (dir: string): void => {
      write(dir, ".git/info/exclude", "node_modules/\n");
      write(dir, "node_modules/.bin/tool", "#!/bin/sh\necho tool\n");
      fs.chmodSync(path.join(dir, "node_modules/.bin/tool"), 0o755);
    };
    const { judged, fixed, repo } = await judge(
      PROJECTS.exit,
      NPM,
      async (dir) => {
        write(dir, "node_modules/.bin/node", "#!/bin/sh\nexit 0\n");
        fs.chmodSync(path.join(dir, "node_modules/.bin/node"), 0o755);
      },
      [],
      deps,
    );
    // The hostile step ran: npm ran the stub, and the unfixed code passed where the fix was made.
    expect(fs.readFileSync(path.join(repo.dir, "math.js"), "utf8")).toBe(BROKEN);
    expect(fixed[0]?.passed).toBe(true);
    expect(judged.kind).toBe("failed");
    expect(judged.kind === "failed" && judged.detail).toContain("node_modules/.bin/node");

    const honest = await judge(PROJECTS.exit, NPM, async (dir) => write(dir, "math.js", FIXED), [], deps);
    expect(honest.judged).toEqual({ kind: "untouched", named: [] });
  });

  it("a library in node_modules/ the fix rewrote (not a .bin entry), even with its old mtime: refused; a cache the checks write is no reason", async () => {
    const project = {
      "package.json": PROJECTS.exit["package.json"],
      "math.js": BROKEN,
      "test.js": 'const { equal } = require("checker");\nconst { add } = require("./math.js");\nequal(add(1, 2), 3);\nconsole.log("ok");\n',
    };
    const checker = "node_modules/checker/index.js";
    const deps = (dir: string): void => {
      write(dir, ".git/info/exclude", "node_modules/\n");
      write(dir, checker, 'exports.equal = (a, b) => { if (a !== b) { console.error(a + " !== " + b); process.exit(1); } };\n');
    };
    const { judged, fixed, repo } = await judge(
      project,
      NPM,
      async (dir) => {
        const file = path.join(dir, checker);
        const { mtime, atime } = fs.statSync(file);
        // Same length as before, and the old times put back: only the change time tells.
        const original = fs.readFileSync(file, "utf8");
        fs.writeFileSync(file, "exports.equal = () => {};".padEnd(original.length - 1, " ") + "\n");
        fs.utimesSync(file, atime, mtime);
      },
      [],
      deps,
    );
    // The hostile step ran: the library no longer checks, and the unfixed code passed where the fix was made.
    expect(fs.readFileSync(path.join(repo.dir, "math.js"), "utf8")).toBe(BROKEN);
    expect(fixed[0]?.passed).toBe(true);
    expect(judged.kind).toBe("failed");
    expect(judged.kind === "failed" && judged.detail).toContain("node_modules/");

    const honest = await judge(
      project,
      NPM,
      async (dir) => {
        write(dir, "math.js", FIXED);
        write(dir, "node_modules/.cache/babel-loader/x.json", "{}\n");
      },
      [],
      deps,
    );
    expect(honest.judged).toEqual({ kind: "untouched", named: [] });
  });
});
