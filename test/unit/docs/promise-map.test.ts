import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../support/index.ts";
import { testStatus } from "./find-test.ts";

/*
 * Every promise the user-facing docs make has a test that fails when it breaks. A promise is a line
 * of PROMISING_DOCS marked `<!-- promise: id[, id…] -->`; every row of docs/security.md's two tables
 * is one and must be marked. docs/testing.md's "Promise map" names, per id, the tests:
 * `` `file` › "title" ``. The rules are docs/testing.md's, "Promise map".
 */

const PROMISING_DOCS = ["README.md", "docs/security.md", "docs/cost.md", "docs/ci.md"];
/** The tables of docs/security.md whose every row is a promise, by their header's first cell. */
const PROMISE_TABLES = ["guarantee", "what runs"];

const read = (file: string): string => fs.readFileSync(path.join(REPO_ROOT, file), "utf8");

/** The ids marked in a text, with the line each is on. */
function markedPromises(text: string): Array<{ id: string; line: number }> {
  const found: Array<{ id: string; line: number }> = [];
  text.split("\n").forEach((line, index) => {
    for (const m of line.matchAll(/<!--\s*promise:\s*([^>]*?)\s*-->/g))
      for (const id of (m[1] ?? "").split(",").map((s) => s.trim())) found.push({ id, line: index + 1 });
  });
  return found;
}

/** The rows (line numbers and text) of the markdown tables whose header's first cell is one of `headers`. */
function tableRows(text: string, headers: readonly string[]): Array<{ line: number; text: string }> {
  const lines = text.split("\n");
  const rows: Array<{ line: number; text: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    const first = /^\|\s*([^|]*?)\s*\|/.exec(lines[i] ?? "")?.[1];
    if (first === undefined || !headers.includes(first) || !/^\|[-|\s:]+\|$/.test(lines[i + 1] ?? "")) continue;
    for (i += 2; i < lines.length && lines[i]?.startsWith("|"); i++) rows.push({ line: i + 1, text: lines[i] ?? "" });
  }
  return rows;
}

interface MapEntry {
  id: string;
  /** `when`: the map's reason a test behind `skipIf`/`runIf` may not run, `(when: …)` after its title. */
  tests: Array<{ file: string; title: string; when?: string }>;
}

/** The rows of docs/testing.md's "Promise map" table. */
function promiseMap(testing: string): MapEntry[] {
  const start = testing.indexOf("\n## Promise map\n");
  if (start < 0) return [];
  const end = testing.indexOf("\n## ", start + 1);
  const section = testing.slice(start, end < 0 ? undefined : end);
  return tableRows(section, ["promise"]).map(({ text }) => {
    const cells = text.split(" | ");
    return {
      id: /`([^`]+)`/.exec(cells[0] ?? "")?.[1] ?? "",
      tests: [...(cells.at(-1) ?? "").matchAll(/`([^`]+)` › "(.*?)"(?: \(when: ([^)]+)\))?(?=<br>| \|$)/g)].map((m) => ({
        file: m[1] ?? "",
        title: m[2] ?? "",
        ...(m[3] === undefined ? {} : { when: m[3] }),
      })),
    };
  });
}

/** What is wrong with naming this test in the map, if anything: it must run, or the map says when it does not. */
function mappedTestProblem(source: string, title: string, when: string | undefined): string | undefined {
  const status = testStatus(source, title);
  if (status.kind === "absent") return "has no test";
  if (status.kind === "refused") return `names a test that does not run (${status.why})`;
  if (status.kind === "conditional" && when === undefined)
    return `names a test behind ${status.conditions.join(", ")}: add (when: the reason) after its title`;
  if (status.kind === "runnable" && when !== undefined) return `says (when: ${when}) of a test that always runs`;
  return undefined;
}

describe("the promise map (docs/testing.md)", () => {
  const marked = PROMISING_DOCS.flatMap((doc) => markedPromises(read(doc)).map((m) => ({ ...m, doc })));
  const map = promiseMap(read("docs/testing.md"));

  it("reads the marks, the tables and the map", () => {
    expect(markedPromises("a <!-- promise: x --> b\n<!-- promise: y, z -->")).toEqual([
      { id: "x", line: 1 },
      { id: "y", line: 2 },
      { id: "z", line: 2 },
    ]);
    const table = "| guarantee | tested by |\n|---|---|\n| one | a |\n| two | b |\n\nprose\n| other | x |\n|---|---|\n| three | c |\n";
    expect(tableRows(table, ["guarantee"]).map((r) => r.text)).toEqual(["| one | a |", "| two | b |"]);
    expect(
      promiseMap(
        '# T\n\n## Promise map\n\n| promise | what | tests |\n|---|---|---|\n| `a` | x | `t/a.test.ts` › "one"<br>`t/b.test.ts` › "two: \\"q\\"" |\n\n## Next\n',
      ),
    ).toEqual([
      {
        id: "a",
        tests: [
          { file: "t/a.test.ts", title: "one" },
          { file: "t/b.test.ts", title: 'two: \\"q\\"' },
        ],
      },
    ]);
    expect(promiseMap('# T\n\n## Promise map\n\n| promise | tests |\n|---|---|\n| `a` | `t/a.test.ts` › "one" (when: bubblewrap runs) |\n')).toEqual([
      { id: "a", tests: [{ file: "t/a.test.ts", title: "one", when: "bubblewrap runs" }] },
    ]);
  });

  it("accepts only a test that runs: not a skip, a todo, a describe, a skipped suite, nor a condition without its reason", () => {
    const problem = (source: string, when?: string): string | undefined => mappedTestProblem(source, "adds (two)", when);
    expect(problem('it("adds (two)", () => {})')).toBeUndefined();
    expect(problem('test.concurrent("adds (two)", async () => {})')).toBeUndefined();
    expect(problem('describe("math", () => {\n  it("adds (two)", () => {});\n});')).toBeUndefined();
    expect(problem('it.skip("adds (two)", () => {})')).toMatch(/does not run \(it\.skip\)/);
    expect(problem('test.skip("adds (two)", () => {})')).toMatch(/does not run \(test\.skip\)/);
    expect(problem('it.todo("adds (two)")')).toMatch(/does not run \(it\.todo\)/);
    expect(problem('it("adds (two)")')).toMatch(/a todo/);
    expect(problem('it.fails("adds (two)", () => {})')).toMatch(/it\.fails/);
    expect(problem('describe("adds (two)", () => {})')).toMatch(/a describe, not a test/);
    expect(problem('describe.skip("math", () => {\n  it("adds (two)", () => {});\n});')).toMatch(/inside describe\.skip/);
    expect(problem('describe("a", () => {\n  describe.todo("b", () => {\n    it("adds (two)", () => {});\n  });\n});')).toMatch(/inside describe\.todo/);
    expect(problem('it.skipIf(x)(\n  "adds (two)",\n  () => {})')).toMatch(/behind skipIf\(x\)/);
    expect(problem('describe.skipIf(!bwrap)("s", () => {\n  it("adds (two)", () => {});\n});')).toMatch(/behind skipIf\(!bwrap\)/);
    expect(problem('describe.skipIf(!bwrap)("s", () => {\n  it("adds (two)", () => {});\n});', "no bubblewrap")).toBeUndefined();
    expect(problem('it("adds (two)", () => {})', "no bubblewrap")).toMatch(/always runs/);
    expect(problem('const s = "adds (two)";')).toBe("has no test");
    expect(problem('it("adds (two) more", () => {})')).toBe("has no test");
    // A skipped copy beside a running one does not hide the running one, and the running one is what counts.
    expect(problem('it.skip("adds (two)", () => {});\nit("adds (two)", () => {});')).toBeUndefined();
  });

  it("finds promises in every promising doc, and a row for each promise", () => {
    expect(map.length).toBeGreaterThan(0);
    for (const doc of PROMISING_DOCS) expect(marked.filter((m) => m.doc === doc).length, doc).toBeGreaterThan(0);
    const mapped = new Set(map.map((e) => e.id));
    const missing = marked.filter((m) => !mapped.has(m.id)).map((m) => `${m.doc}:${m.line}: ${m.id}`);
    expect(missing, "promises without a row in docs/testing.md's Promise map").toEqual([]);
  });

  it("marks every row of docs/security.md's guarantee tables", () => {
    const rows = tableRows(read("docs/security.md"), PROMISE_TABLES);
    expect(rows.length).toBeGreaterThanOrEqual(20);
    const unmarked = rows.filter((r) => markedPromises(r.text).length === 0).map((r) => `docs/security.md:${r.line}`);
    expect(unmarked, "table rows without <!-- promise: id -->").toEqual([]);
  });

  it("maps only promises the docs make, once each, each to at least one test", () => {
    const ids = map.map((e) => e.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i), "ids with two rows").toEqual([]);
    const promised = new Set(marked.map((m) => m.id));
    expect(
      ids.filter((id) => !promised.has(id)),
      "rows for promises no doc marks",
    ).toEqual([]);
    expect(map.filter((e) => e.tests.length === 0).map((e) => e.id)).toEqual([]);
  });

  it("names test files that exist and titles that are tests of those files, each one that runs", () => {
    const wrong: string[] = [];
    for (const entry of map)
      for (const { file, title, when } of entry.tests) {
        const full = path.join(REPO_ROOT, file);
        if (!file.endsWith(".test.ts") || !fs.existsSync(full)) wrong.push(`${entry.id}: no test file ${file}`);
        else {
          const problem = mappedTestProblem(fs.readFileSync(full, "utf8"), title, when);
          if (problem) wrong.push(`${entry.id}: ${file} ${problem} "${title}"`);
        }
      }
    expect(wrong).toEqual([]);
  });
});
