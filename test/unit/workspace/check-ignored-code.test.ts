import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { detectSandbox } from "../../../src/sandbox/index.ts";
import { judgeRestoredChecks, runCheck, runChecks, runGit, snapshotTree, type GitRun } from "../../../src/workspace/index.ts";
import { gitEnv } from "../../support/git.ts";
import { clone } from "../repo/fixtures.ts";

/*
 * What the checks load from ignored places (in no diff): Python's bytecode in `__pycache__/` is
 * neither read nor written by a check (checks.ts gives each run a bytecode folder of its own), and
 * the restored run's scratch copy finds the fixed tree's dependency folders it links to, although
 * the fixed tree lies in the sandbox's private temp folder (restored-checks.ts).
 */

const ENV = gitEnv({ npm_config_update_notifier: "false" });
const run: GitRun = (args, options) => runGit(args, { ...options, env: ENV });
const sandboxed = detectSandbox(process.env).kind === "bwrap";
const PYTHON = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).stdout?.trim() ?? "";
const TAG = PYTHON ? spawnSync(PYTHON, ["-c", "import sys; print(sys.implementation.cache_tag)"], { encoding: "utf8" }).stdout.trim() : "";
const BROKEN = "def add(a, b):\n    return a - b\n";
const CHECK = `${PYTHON} -c "import sys; from calc import add; sys.exit(0 if add(1, 2) == 3 else 1)"`;

const write = (dir: string, file: string, content: string): void => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), content);
};

/** An unchecked-hash .pyc of a working `add` for calc.py (PEP 552: never compared with its source). */
function plantPyc(dir: string): string {
  const good = path.join(dir, "good-calc.py");
  fs.writeFileSync(good, "def add(a, b):\n    return a + b\n");
  const pyc = path.join(dir, "__pycache__", `calc.${TAG}.pyc`);
  const script = `import py_compile as p; p.compile(${JSON.stringify(good)}, cfile=${JSON.stringify(pyc)}, dfile="calc.py", invalidation_mode=p.PycInvalidationMode.UNCHECKED_HASH)`;
  expect(spawnSync(PYTHON, ["-c", script]).status).toBe(0);
  fs.rmSync(good);
  return pyc;
}

describe.skipIf(!PYTHON)("a check runs Python with bytecode of its own", () => {
  for (const sandbox of ["off", "required"] as const)
    it.skipIf(sandbox === "required" && !sandboxed)(
      `sandbox ${sandbox}: a planted .pyc in __pycache__/ is not loaded, and the tree's __pycache__/ is not written`,
      async () => {
        const repo = await clone({ "calc.py": BROKEN, ".gitignore": "__pycache__/\n" });
        const pyc = plantPyc(repo.dir);
        // Positive control: Python run plainly loads the plant, and the broken code passes.
        expect(spawnSync("sh", ["-c", CHECK], { cwd: repo.dir, env: { PATH: process.env.PATH ?? "" } }).status).toBe(0);
        const bytes = fs.readFileSync(pyc);
        const result = await runCheck(CHECK, { cwd: repo.dir, timeoutMs: 60_000, env: ENV, sandbox });
        expect(result.passed).toBe(false);
        expect(fs.readdirSync(path.join(repo.dir, "__pycache__"))).toEqual([path.basename(pyc)]);
        expect(fs.readFileSync(pyc)).toEqual(bytes);
      },
    );
});

describe.skipIf(!sandboxed)("the restored run finds the fixed tree's dependencies (real bubblewrap)", () => {
  it("an honest fix that also touches the test passes there: node_modules/ is linked from the fixed tree and shown", async () => {
    const project = {
      "package.json": JSON.stringify({ name: "app", private: true, scripts: { test: "node test.js" } }) + "\n",
      "math.js": "exports.add = (a, b) => a - b;\n",
      "test.js": 'require("checker").equal(require("./math.js").add(1, 2), 3);\n',
      ".gitignore": "node_modules/\n",
    };
    const repo = await clone(project);
    write(repo.dir, "node_modules/checker/index.js", "exports.equal = (a, b) => { if (a !== b) process.exit(1); };\n");
    const since = await repo.git(["rev-parse", "HEAD"]);
    const baseline = await snapshotTree(run, repo.dir);
    write(repo.dir, "math.js", "exports.add = (a, b) => a + b;\n");
    fs.appendFileSync(path.join(repo.dir, "test.js"), "// add() adds\n");
    const options = { cwd: repo.dir, timeoutMs: 60_000, env: ENV, sandbox: "required" as const };
    const fixed = await runChecks(["npm test"], options);
    expect(fixed[0]?.passed, fixed[0]?.output).toBe(true);
    const judged = await judgeRestoredChecks({
      dir: repo.dir,
      since,
      baseline,
      env: ENV,
      causeFiles: [],
      commands: ["npm test"],
      fixed,
      timeoutMs: 60_000,
      sandbox: "required",
    });
    expect(judged.kind === "failed" ? judged.detail : judged.kind).toBe("passed");
    expect(judged.kind === "passed" && judged.restored).toEqual(["test.js"]);
  });
});
