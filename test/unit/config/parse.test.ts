import { describe, expect, it } from "vitest";
import { formatProblem, parseConfigText } from "../../../src/config/index.ts";

const file = "/home/me/.config/otto/otto.jsonc";
const problemsOf = (text: string) => parseConfigText(text, { file, scope: "user" }).problems;

describe("parseConfigText", () => {
  it("accepts comments, trailing commas, an empty file and $schema", () => {
    expect(parseConfigText("", { file })).toEqual({ value: {}, problems: [] });
    const text = `{\n  "$schema": "./otto.schema.json", // editor help\n  /* block */ "spec": { "verify": ["npm test",], },\n}\n`;
    expect(parseConfigText(text, { file })).toEqual({
      value: { $schema: "./otto.schema.json", spec: { verify: ["npm test"] } },
      problems: [],
    });
  });

  it("keeps the file as written, without defaults", () => {
    expect(parseConfigText(`{ "spec": {} }`, { file }).value).toEqual({ spec: {} });
  });

  it("reports a syntax error with file:line:col, what was expected and what was found", () => {
    const text = `{\n  "spec": {\n    "max_parallel_tasks": 4\n    "verify": []\n  }\n}\n`;
    const [problem, ...rest] = problemsOf(text);
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ file, line: 4, column: 5, expected: "a ','", found: `'"verify"'` });
    expect(formatProblem(problem!)).toMatch(/^\/home\/me\/\.config\/otto\/otto\.jsonc:4:5 .*expected a ','/);
    expect(problem!.fix).toContain("Fix the JSONC syntax");
  });

  it("reports an unterminated file at its end", () => {
    const [problem] = problemsOf(`{ "spec": {`);
    expect(problem).toMatchObject({ line: 1, column: 12, found: "the end of the file" });
  });

  it("points a wrong type deep in the tree at its exact line:col and key path", () => {
    const text = [
      "{",
      "  // tuning",
      '  "pr": {',
      '    "providers": {',
      '      "ado": {',
      '        "organization": "contoso",',
      '        "auto_complete": "yes"',
      "      }",
      "    }",
      "  }",
      "}",
    ].join("\n");
    const [problem, ...rest] = problemsOf(text);
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({
      file,
      line: 7,
      column: 26,
      key: "pr.providers.ado.auto_complete",
      expected: "a boolean",
      found: `"yes" (string)`,
    });
    expect(problem!.fix).toContain("/otto-config set pr.providers.ado.auto_complete <value> --user");
  });

  it("explains numbers out of range, enums, model formats and durations", () => {
    const text = `{
  "spec": { "max_parallel_tasks": 0, "task_timeout": "soon" },
  "models": { "primary": "claude", "reviewers": ["a/b", "c/d", "e/f", "g/h", "i/j", "k/l"] },
  "pr": { "default_provider": "gitlab" }
}`;
    const byKey = Object.fromEntries(problemsOf(text).map((p) => [p.key, p]));
    expect(byKey["spec.max_parallel_tasks"]).toMatchObject({ line: 2, column: 35, expected: "a number at least 1", found: "0 (number)" });
    expect(byKey["spec.task_timeout"]?.expected).toMatch(/^a duration like 30s/);
    expect(byKey["models.primary"]?.expected).toMatch(/provider\/model/);
    expect(byKey["models.reviewers"]?.expected).toBe("an array with at most 5 items");
    expect(byKey["pr.default_provider"]).toMatchObject({ expected: `one of "github", "ado"`, found: `"gitlab" (string)` });
    expect(Object.keys(byKey)).toHaveLength(5);
  });

  it("rejects unknown keys with a did-you-mean pointing at the key itself", () => {
    const text = `{\n  "spec": {\n    "max_paralel_tasks": 3\n  }\n}`;
    const [problem] = problemsOf(text);
    expect(problem).toMatchObject({ line: 3, column: 5, key: "spec.max_paralel_tasks", found: `unknown key "max_paralel_tasks"` });
    expect(problem!.fix).toContain(`Did you mean "max_parallel_tasks"?`);
  });

  it("suggests the right section for a key written at the wrong level", () => {
    const [problem] = problemsOf(`{ "task_timeout": "1h" }`);
    expect(problem!.fix).toContain(`Did you mean "spec.task_timeout"?`);
  });

  it("lists the allowed keys when nothing is close", () => {
    const [problem] = problemsOf(`{ "zzz": 1 }`);
    expect(problem!.fix).toContain("Keys allowed at the top level: $schema, models");
  });

  it("names a missing required key and its object", () => {
    const [problem] = problemsOf(`{ "repos": [ { "name": "svc" } ] }`);
    expect(problem).toMatchObject({ key: "repos[0].primary_dir", line: 1, column: 14, found: "nothing (the key is required)" });
  });

  it("rejects duplicate repo names", () => {
    const text = `{ "repos": [ { "name": "svc", "primary_dir": "/a" }, { "name": "svc", "primary_dir": "/b" } ] }`;
    const [problem] = problemsOf(text);
    expect(problem?.key).toBe("repos[1].name");
    expect(problem?.expected).toContain("'svc' appears twice");
  });

  it("lists every problem in file order", () => {
    const text = `{\n  "bogus": 1,\n  "spec": { "task_briefing": 1 },\n  "server": { "port": 70000 }\n}`;
    expect(problemsOf(text).map((p) => `${p.line}:${p.key}`)).toEqual(["2:bogus", "3:spec.task_briefing", "4:server.port"]);
  });

  it("never echoes a secret, even a malformed one", () => {
    const [problem] = problemsOf(`{ "notify": { "webhooks": [{ "type": "teams", "url": "ftp://example.com/hook?sig=SECRETSIG" }] } }`);
    expect(problem?.key).toBe("notify.webhooks[0].url");
    expect(JSON.stringify(problem)).not.toContain("SECRETSIG");
  });

  it("requires an object at the top level", () => {
    expect(problemsOf(`\n  [1, 2]`)[0]).toMatchObject({ line: 2, column: 3, expected: "an object ({ ... })" });
  });
});
