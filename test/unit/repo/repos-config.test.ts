import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SCHEMA_URL, isOttoError } from "../../../src/core/index.ts";
import { parseConfigText } from "../../../src/config/index.ts";
import { addRepoEntry, removeRepoEntry } from "../../../src/repo/index.ts";
import { tempDir } from "./fixtures.ts";

const USER_FILE = `{
  // my models, hand-tuned
  "models": { "primary": "a/b" },
  /* repos I work on */
  "repos": [
    // the API, keep first
    { "name": "api", "primary_dir": "~/src/api", "git_strategy": "branch" }
  ]
}
`;

function file(text?: string): string {
  const target = path.join(tempDir(), "otto", "otto.jsonc");
  if (text !== undefined) {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
  }
  return target;
}

describe("repos edits in otto.jsonc", () => {
  it("appends a repo in place, keeping every comment, and the result validates", async () => {
    const target = file(USER_FILE);
    const result = await addRepoEntry(target, {
      name: "web",
      primary_dir: "/src/web",
      worktree_dir: "/src/web-wt",
      git_strategy: "worktree",
      branch_template: "users/me/{{name}}",
    });
    expect(result).toMatchObject({ index: 1, changed: true, created: false, key: "repos[1]" });
    const text = fs.readFileSync(target, "utf8");
    for (const comment of ["// my models, hand-tuned", "/* repos I work on */", "// the API, keep first"]) expect(text).toContain(comment);
    const parsed = parseConfigText(text, { file: target, scope: "user" });
    expect(parsed.problems).toEqual([]);
    expect(parsed.value?.repos).toEqual([
      { name: "api", primary_dir: "~/src/api", git_strategy: "branch" },
      { name: "web", primary_dir: "/src/web", worktree_dir: "/src/web-wt", git_strategy: "worktree", branch_template: "users/me/{{name}}" },
    ]);
  });

  it("removes a repo by name, keeping the comments around it", async () => {
    const target = file(USER_FILE);
    await addRepoEntry(target, { name: "web", primary_dir: "/src/web" });
    const removed = await removeRepoEntry(target, "web");
    expect(removed).toMatchObject({ index: 1, entry: { name: "web" }, changed: true });
    const text = fs.readFileSync(target, "utf8");
    expect(text).toContain("// the API, keep first");
    expect(parseConfigText(text, { file: target }).value?.repos).toEqual([
      { name: "api", primary_dir: "~/src/api", git_strategy: "branch" },
    ]);
    expect(await removeRepoEntry(target, "nope")).toBeUndefined();
    expect(fs.readFileSync(target, "utf8")).toBe(text);
  });

  it("creates the file and its folder when absent", async () => {
    const target = file();
    const result = await addRepoEntry(target, { name: "api", primary_dir: "/src/api" });
    expect(result).toMatchObject({ index: 0, created: true });
    expect(parseConfigText(fs.readFileSync(target, "utf8"), { file: target }).value).toEqual({
      $schema: SCHEMA_URL,
      repos: [{ name: "api", primary_dir: "/src/api" }],
    });
  });

  it("refuses a duplicate name, and a file that does not validate, without touching it", async () => {
    const target = file(USER_FILE);
    const duplicate = await addRepoEntry(target, { name: "api", primary_dir: "/x" }).catch((e: unknown) => e);
    expect(isOttoError(duplicate) && duplicate.code).toBe("repo_exists");
    const broken = file('{ "repos": [ { "name": 3 } ] }');
    const invalid = await addRepoEntry(broken, { name: "api", primary_dir: "/x" }).catch((e: unknown) => e);
    expect(isOttoError(invalid) && invalid.code).toBe("config_invalid");
    expect(fs.readFileSync(target, "utf8")).toBe(USER_FILE);
  });

  it("serialises concurrent adds under the file lock: no entry is lost", async () => {
    const target = file(USER_FILE);
    await Promise.all(["a", "b", "c", "d"].map((name) => addRepoEntry(target, { name, primary_dir: `/src/${name}` })));
    const repos = parseConfigText(fs.readFileSync(target, "utf8"), { file: target }).value?.repos as Array<{ name: string }>;
    expect(repos.map((r) => r.name).sort()).toEqual(["a", "api", "b", "c", "d"]);
  });
});
