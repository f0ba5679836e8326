import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { detectWeakenedChecks, readChangeSet, runGit, snapshotTree, splitByCause } from "../../../../src/workspace/index.ts";
import { createRepo, gitEnv, writeFiles, type Repo } from "../../../support/git.ts";

/*
 * A fix that hides a flaky test is a weakened check: a sleep, a retry, a longer timeout or a
 * retry plugin added to a test or its configuration is flagged (and refused unless the analysis
 * named the file), on real change sets read as otto reads them.
 */

const env = gitEnv();
const TEST = `import { fetchUser } from "../src/user.js";\n\nit("loads the user", async () => {\n  expect(await fetchUser(1)).toEqual({ id: 1 });\n});\n`;

describe("fixes that hide a flaky test", () => {
  let repo: Repo | undefined;
  afterEach(() => repo?.cleanup());

  async function flags(before: Record<string, string>, edits: Record<string, string>) {
    // A test may call this more than once: the repo of the call before is done with.
    repo?.cleanup();
    repo = await createRepo({ files: { "README.md": "# app\n", ...before }, remote: false });
    const since = await repo.git(["rev-parse", "HEAD"]);
    const baseline = await snapshotTree((args, o) => runGit(args, { ...o, env }), repo.dir);
    for (const [file, text] of Object.entries(edits)) writeFiles(repo.dir, { [file]: text });
    return detectWeakenedChecks(await readChangeSet({ dir: repo.dir, since, baseline, env }));
  }
  const kinds = (list: Awaited<ReturnType<typeof flags>>) => list.map((f) => `${f.path} ${f.kind}: ${f.reason}`);

  it("a retry, a sleep and a longer timeout added to tests are flagged, each by name", async () => {
    const found = await flags(
      {
        "test/user.test.js": TEST,
        "tests/test_api.py": "def test_api():\n    assert api() == 1\n",
        "src/user.js": "export const x = 1;\n",
      },
      {
        "test/user.test.js":
          `jest.retryTimes(3);\n${TEST.replace("async () => {", "async () => {\n  await new Promise((r) => setTimeout(r, 500));")}`.replace(
            "});\n",
            "}, 30000);\njest.setTimeout(60000);\n",
          ),
        "tests/test_api.py": "import pytest\n\n@pytest.mark.flaky(reruns=3)\ndef test_api():\n    assert api() == 1\n",
        "src/user.js": "export const x = 2;\nsetTimeout(() => {}, 10);\n",
      },
    );
    expect(kinds(found)).toEqual([
      "test/user.test.js flake_hidden: sleep, retry, longer timeout added to a test: it hides a flaky failure instead of fixing it",
      "tests/test_api.py flake_hidden: retry added to a test: it hides a flaky failure instead of fixing it",
    ]);
  });

  it("a test-retry plugin added as a dependency is flagged; an unrelated dependency is not", async () => {
    const pkg = (deps: Record<string, string>) => JSON.stringify({ name: "app", devDependencies: deps }, null, 2);
    const found = await flags(
      { "package.json": pkg({ jest: "29.0.0" }), "requirements-dev.txt": "pytest\n" },
      {
        "package.json": pkg({ jest: "29.0.0", "jest-retries": "1.0.0", zod: "4.0.0" }),
        "requirements-dev.txt": "pytest\npytest-rerunfailures\n",
      },
    );
    expect(kinds(found)).toEqual([
      "package.json flake_hidden: a test-retry plugin added: it hides a flaky test instead of fixing it",
      "requirements-dev.txt flake_hidden: a test-retry plugin added: it hides a flaky test instead of fixing it",
    ]);
  });

  it("allowed only in a file the analysis named as the cause; a moved sleep is not a new one", async () => {
    const found = await flags(
      { "test/user.test.js": TEST },
      { "test/user.test.js": `${TEST}it("waits", async () => { await sleep(100); expect(1).toBe(1); });\n` },
    );
    expect(splitByCause(found, ["src/user.js"]).refused.map((f) => f.kind)).toEqual(["flake_hidden"]);
    expect(splitByCause(found, ["test/user.test.js"]).refused).toEqual([]);
    const moved = await flags(
      { "test/a.test.js": `it("a", async () => {\n  await sleep(10);\n  expect(1).toBe(1);\n});\n` },
      { "test/a.test.js": `it("a", async () => {\n  expect(1).toBe(1);\n  await sleep(10);\n});\n` },
    );
    expect(moved).toEqual([]);
    expect(fs.existsSync(path.join(repo?.dir ?? "", "test/a.test.js"))).toBe(true);
  });
});
