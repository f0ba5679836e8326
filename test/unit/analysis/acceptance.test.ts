import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { judgeAcceptance, readProjectFacts } from "../../../src/analysis/index.ts";

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});

async function project(files: Record<string, string>) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "otto-acceptance-"));
  dirs.push(dir);
  for (const [file, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.writeFile(path.join(dir, file), text);
  }
  const { facts, detection } = await readProjectFacts(dir);
  return (command: string, own: string[] = []) => judgeAcceptance(command, { ...facts, checks: detection.checks }, own);
}

describe("a task's acceptance check is held against the project's tooling", () => {
  it("Node: its scripts and its dependencies' binaries run; others are named with the project's checks", async () => {
    const judge = await project({
      "package.json": JSON.stringify({
        name: "p",
        scripts: { test: "vitest run", lint: "eslint ." },
        devDependencies: { vitest: "4", typescript: "5" },
      }),
      "package-lock.json": "{}",
      "tsconfig.json": "{}",
      "test/a.test.ts": "",
    });
    expect(judge("npm test -- test/a.test.ts")).toBeUndefined();
    expect(judge("npm run lint")).toBeUndefined();
    expect(judge("npx vitest run test/a.test.ts")).toBeUndefined();
    expect(judge("npx tsc --noEmit")).toBeUndefined();
    expect(judge("CI=1 npm test")).toBeUndefined();
    expect(judge("npm run e2e")).toMatch(
      /runs the script e2e, which package.json does not have \(its checks: npm test, npm run lint, npx tsc --noEmit\)/,
    );
    expect(judge("npx jest a.test.ts")).toMatch(/runs jest, which is not a dependency/);
    expect(judge("pytest tests/")).toMatch(/runs pytest, but the repository root has no Python project file \(pyproject\.toml, /);
    expect(judge("rake test")).toMatch(/runs rake, which is none of this project's tools/);
    expect(judge("npm test | tee out.txt")).toMatch(/more than one command/);
  });

  it("scripts must exist in the tree or be the task's own files; POSIX tests always run", async () => {
    const judge = await project({ Makefile: "test:\n\tgo test ./...\n", "go.mod": "module x\n", "scripts/check.sh": "#!/bin/sh\n" });
    expect(judge("make test")).toBeUndefined();
    expect(judge("make lint")).toMatch(/runs the make target lint, which Makefile does not have/);
    expect(judge("go test ./internal/x/")).toBeUndefined();
    expect(judge("bash scripts/check.sh")).toBeUndefined();
    expect(judge("./scripts/check.sh")).toBeUndefined();
    expect(judge("./scripts/new.sh")).toMatch(
      /runs the script \.\/scripts\/new\.sh, which is not in the repository nor in the task's files/,
    );
    expect(judge("./scripts/new.sh", ["scripts/new.sh"])).toBeUndefined();
    expect(judge("test -f out.txt")).toBeUndefined();
    expect(judge("cargo test")).toMatch(/no Cargo\.toml/);
  });
});
