import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listSpecs, readArtifacts, resolveSpec, serializeTasks, specPaths, specsDir } from "../../../src/spec/index.ts";
import { list, task } from "./task-builders.ts";

let repo: string;
beforeEach(() => {
  repo = fs.mkdtempSync(path.join(os.tmpdir(), "otto-spec-layout-"));
});
afterEach(() => {
  fs.rmSync(repo, { recursive: true, force: true });
});

function write(rel: string, text = "x\n"): void {
  const file = path.join(specsDir(repo), rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

describe("specsDir / specPaths", () => {
  it("places every file of a spec under <repo>/.otto/specs/<slug>", () => {
    expect(specsDir(repo)).toBe(path.join(repo, ".otto", "specs"));
    const dir = path.join(repo, ".otto", "specs", "add-auth");
    expect(specPaths(repo, "add-auth")).toEqual({
      dir,
      requirements: path.join(dir, "requirements.md"),
      research: path.join(dir, "research.md"),
      design: path.join(dir, "design.md"),
      tasks: path.join(dir, "tasks.md"),
      questions: path.join(dir, "questions.md"),
      history: path.join(dir, "history"),
    });
  });

  it.each(["../x", "..", "a/b", "/tmp", ".", ""])("refuses the slug %j", (slug) => {
    expect(() => specPaths(repo, slug)).toThrow(expect.objectContaining({ code: "invalid_slug" }));
  });
});

describe("listSpecs / readArtifacts", () => {
  it("returns [] when .otto/specs does not exist", () => {
    expect(listSpecs(repo)).toEqual([]);
  });

  it("lists specs sorted, with their artifacts and a task summary, ignoring archive/ and odd folders", () => {
    write("rate-limiting/requirements.md");
    write("add-auth/requirements.md");
    write("add-auth/research.md");
    write("add-auth/design.md");
    write("add-auth/questions.md");
    write("add-auth/tasks.md", serializeTasks(list(task(1, { status: "completed" }), task(2), task(3, { parallel_group: 2 }))));
    write("add-auth/history/run-001.md");
    write("archive/old-spec/requirements.md");
    write(".hidden/requirements.md");
    write("Not A Slug/requirements.md");
    write("stray-file.md");
    fs.mkdirSync(path.join(specsDir(repo), "empty"), { recursive: true });
    fs.mkdirSync(path.join(specsDir(repo), "rate-limiting", "design.md"), { recursive: true }); // a folder, not a file

    const specs = listSpecs(repo);
    expect(specs.map((s) => s.slug)).toEqual(["add-auth", "empty", "rate-limiting"]);
    expect(specs[0]?.artifacts).toEqual({ requirements: true, research: true, design: true, tasks: true, questions: true });
    expect(specs[0]?.tasks?.total).toBe(3);
    expect(specs[0]?.tasks?.byStatus.completed).toBe(1);
    expect(specs[1]).toEqual({
      slug: "empty",
      artifacts: { requirements: false, research: false, design: false, tasks: false, questions: false },
    });
    expect(specs[2]?.artifacts.design).toBe(false);
    expect(readArtifacts(repo, "add-auth")).toEqual(new Set(["requirements", "research", "design", "tasks", "questions"]));
    expect(readArtifacts(repo, "missing")).toEqual(new Set());
    expect(() => resolveSpec(specs)).toThrow(
      "Multiple specs found, specify one with --spec:\n  add-auth       (5 artifacts)\n  empty          (0 artifacts)\n  rate-limiting  (1 artifact)",
    );
    expect(resolveSpec(specs, "ra")).toBe("rate-limiting");
  });
});
