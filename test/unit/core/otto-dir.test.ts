import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { assertOttoPathSafe, ottoRootOf } from "../../../src/core/index.ts";
import { BuildStore } from "../../../src/build/state.ts";
import { crewPaths } from "../../../src/crew/paths.ts";
import { transact } from "../../../src/crew/store.ts";
import { specPaths } from "../../../src/spec/layout.ts";
import { writeHistoryFile, writeSpecFile } from "../../../src/spec/pipeline/spec-files.ts";

/*
 * A checkout's .otto folder can come from a commit as a symlink. Otto must refuse to write or
 * delete through it, before touching anything: every test checks the outside folder stays empty.
 */

const dirs: string[] = [];
const tmp = async (name: string): Promise<string> => {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), `otto-${name}-`)));
  dirs.push(dir);
  return dir;
};
afterAll(async () => Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true }))));

const listAll = async (dir: string): Promise<string[]> => (await fs.readdir(dir, { recursive: true })).map(String).sort();

/** A repo whose `.otto` (or `.otto/<sub>`) is a symlink to a folder outside it. */
async function linked(sub?: string): Promise<{ repo: string; outside: string }> {
  const repo = await tmp("repo");
  const outside = await tmp("outside");
  if (sub === undefined) await fs.symlink(outside, path.join(repo, ".otto"));
  else {
    await fs.mkdir(path.join(repo, ".otto"), { recursive: true });
    await fs.symlink(outside, path.join(repo, ".otto", sub));
  }
  return { repo, outside };
}

const refused = { code: "otto_dir_symlink" };

describe("a symlinked .otto", () => {
  it("finds the repository of a path under .otto", () => {
    expect(ottoRootOf("/r/.otto/specs/x/design.md")).toBe("/r");
    expect(ottoRootOf("/r/src/a.ts")).toBeUndefined();
  });

  it("refuses a spec write, a history record, a crew write and a build loop's state when .otto is a symlink", async () => {
    const { repo, outside } = await linked();
    const paths = specPaths(repo, "rate-limit");
    await expect(writeSpecFile(paths.design, "# Design\n")).rejects.toMatchObject(refused);
    await expect(writeHistoryFile(paths, "x.md", "text")).rejects.toMatchObject(refused);
    await expect(
      transact(
        crewPaths(repo),
        () => new Date(0),
        ({ post }) => post({ from: "a", kind: "say", text: "hi", mentions: [] }),
      ),
    ).rejects.toMatchObject(refused);
    const build = new BuildStore(repo);
    const target = { kind: "spec", name: "rate-limit" } as const;
    await expect(build.requestStop(target)).rejects.toMatchObject(refused);
    await expect(build.clearStop(target)).rejects.toMatchObject(refused);
    await expect(build.write({ target } as never)).rejects.toMatchObject(refused);
    expect(await listAll(outside)).toEqual([]);
  });

  it("says what is wrong and what to do", async () => {
    const { repo } = await linked();
    const error = await assertOttoPathSafe(path.join(repo, ".otto", "specs", "x", "design.md")).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "otto_dir_symlink",
      message: expect.stringContaining(".otto is a symlink") as unknown,
      fix: expect.stringContaining("Replace the symlink with a real folder") as unknown,
    });
  });

  it.each(["specs", "crew", "build"])("refuses .otto/%s linked outside the repository", async (sub) => {
    const { repo, outside } = await linked(sub);
    const write =
      sub === "specs"
        ? writeSpecFile(specPaths(repo, "s").design, "x")
        : sub === "crew"
          ? transact(
              crewPaths(repo),
              () => new Date(0),
              ({ post }) => post({ from: "a", kind: "say", text: "hi", mentions: [] }),
            )
          : new BuildStore(repo).requestStop({ kind: "spec", name: "s" });
    await expect(write).rejects.toMatchObject({
      code: "otto_dir_symlink",
      message: expect.stringContaining("outside the repository") as unknown,
    });
    expect(await listAll(outside)).toEqual([]);
  });

  it("refuses a spec folder or a spec file linked outside, and a dangling link", async () => {
    const repo = await tmp("repo");
    const outside = await tmp("outside");
    const specs = path.join(repo, ".otto", "specs");
    await fs.mkdir(path.join(specs, "b"), { recursive: true });
    await fs.symlink(outside, path.join(specs, "a"));
    await fs.writeFile(path.join(outside, "bashrc"), "user's file\n");
    await fs.symlink(path.join(outside, "bashrc"), path.join(specs, "b", "design.md"));
    await fs.symlink(path.join(outside, "missing"), path.join(specs, "b", "tasks.md"));
    await expect(writeSpecFile(specPaths(repo, "a").design, "x")).rejects.toMatchObject(refused);
    await expect(writeSpecFile(specPaths(repo, "b").design, "x")).rejects.toMatchObject(refused);
    await expect(writeSpecFile(specPaths(repo, "b").tasks, "x")).rejects.toMatchObject(refused);
    expect(await listAll(outside)).toEqual(["bashrc"]);
    expect(await fs.readFile(path.join(outside, "bashrc"), "utf8")).toBe("user's file\n");
  });

  it("allows a real .otto, and a link that stays inside the repository", async () => {
    const repo = await tmp("repo");
    await fs.mkdir(path.join(repo, "docs", "specs"), { recursive: true });
    await fs.mkdir(path.join(repo, ".otto"));
    await fs.symlink(path.join(repo, "docs", "specs"), path.join(repo, ".otto", "specs"));
    await writeSpecFile(specPaths(repo, "s").design, "# Design\n");
    expect(await fs.readFile(path.join(repo, "docs", "specs", "s", "design.md"), "utf8")).toBe("# Design\n");
    await new BuildStore(repo).requestStop({ kind: "spec", name: "s" });
    expect(await listAll(path.join(repo, ".otto", "build"))).toEqual([".gitignore", "s.stop"]);
  });
});
