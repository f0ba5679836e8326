import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { aliasesOf, credentialWords, filesOf, judgedPath, readScript } from "../../../src/guard/tool-args.ts";
import { runGit } from "../../../src/workspace/git.ts";

/* What a guarded call's arguments name (tool-args.ts), read directly: files, paths, credential stores, aliases, scripts. */

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
const tmp = () => (dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-tool-args-"))));

describe("filesOf", () => {
  it("every path argument, then each patch's file headers, in order", () => {
    expect(
      filesOf({
        filePath: "a",
        file_path: "b",
        path: "c",
        other: "d",
        patch: "+++ b/e\n--- /dev/null\n+++ \n",
        input: "*** Delete File: f\n*** Add File:   \n",
      }),
    ).toEqual(["a", "b", "c", "b/e", "e", "f"]);
    expect(filesOf({ filePath: 3, patchText: 4, patch: undefined })).toEqual([]);
    expect(filesOf({ path: "" })).toEqual([""]);
    // Trailing blanks are not part of a name; a header of blanks names nothing; only a leading a/ or b/ is git's prefix.
    expect(filesOf({ patch: "+++ b/e  \n+++    \n--- src/a/x.ts\n*** Add File: y.ts \t\n" })).toEqual(["y.ts", "b/e", "e", "src/a/x.ts"]);
  });

  it("apply_patch headers with or without a space, tab-separated, each kind; diff paths as written and without a/ or b/", () => {
    expect(filesOf({ patchText: "--- a/src/x.ts\n+++ b/src/x.ts\n@@\n*** Update File: y.ts\n*** Move to: .git/config" })).toEqual([
      "y.ts",
      ".git/config",
      "a/src/x.ts",
      "src/x.ts",
      "b/src/x.ts",
      "src/x.ts",
    ]);
    expect(filesOf({ patchText: "*** Add File:.git/hooks/pre-commit\n*** Add File:\tb/../x.ts  \n*** Delete File: gone.ts" })).toEqual([
      ".git/hooks/pre-commit",
      "b/../x.ts",
      "gone.ts",
    ]);
    // Only line-start headers count, and only the kinds apply_patch knows; c/ is not a git prefix.
    expect(filesOf({ patchText: " *** Add File: no\n*** Remove File: no\nx--- no\n---\tc/tab.ts\n+++  /dev/null" })).toEqual(["c/tab.ts"]);
  });
});

describe("judgedPath", () => {
  it("a path in the tree keeps the tree's spelling; a link leading out becomes where it leads; the tree itself is the tree", () => {
    const root = tmp();
    const tree = path.join(root, "tree");
    const outside = path.join(root, "outside");
    fs.mkdirSync(path.join(tree, "src"), { recursive: true });
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(tree, "out"));
    fs.symlinkSync(path.join(tree, "src"), path.join(root, "tree-link"));
    const viaLink = path.join(root, "tree-link");
    expect(judgedPath("src/a.ts", tree)).toBe(path.join(tree, "src", "a.ts"));
    expect(judgedPath(path.join(tree, "new", "b.ts"), tree)).toBe(path.join(tree, "new", "b.ts"));
    expect(judgedPath("out/c.ts", tree)).toBe(path.join(outside, "c.ts"));
    expect(judgedPath("../outside/d.ts", tree)).toBe(path.join(outside, "d.ts"));
    expect(judgedPath(".", tree)).toBe(tree);
    expect(judgedPath("..x/e.ts", tree)).toBe(path.join(tree, "..x", "e.ts"));
    // The tree given through a link: spelled from the tree as given, a `..x` folder included; out of it, the real path.
    expect(judgedPath("f.ts", viaLink)).toBe(path.join(viaLink, "f.ts"));
    expect(judgedPath(".", viaLink)).toBe(viaLink);
    expect(judgedPath("..x/g.ts", viaLink)).toBe(path.join(viaLink, "..x", "g.ts"));
    expect(judgedPath("../outside/h.ts", viaLink)).toBe(path.join(outside, "h.ts"));
    expect(judgedPath("..", viaLink)).toBe(root);
    // The real folder just above the tree the link names: outside, by its real path.
    expect(judgedPath(tree, viaLink)).toBe(tree);
  });
});

describe("credentialWords", () => {
  const env = { HOME: "/home/u" };
  const stores = ["/home/u/.git-credentials", "/etc/otto/creds"];
  it("names a store as a path, ~/…, $HOME/… or ${HOME}/…; a store outside the home only by its path", () => {
    expect(credentialWords("cat /home/u/.git-credentials", env, stores)).toBe("reading /home/u/.git-credentials, where credentials live");
    expect(credentialWords("cat ~/.git-credentials", env, stores)).toBe("reading ~/.git-credentials, where credentials live");
    expect(credentialWords("cat $HOME/.git-credentials", env, stores)).toBe("reading $HOME/.git-credentials, where credentials live");
    expect(credentialWords("cat ${HOME}/.git-credentials", env, stores)).toBe("reading ${HOME}/.git-credentials, where credentials live");
    expect(credentialWords("cat /etc/otto/creds", env, stores)).toBe("reading /etc/otto/creds, where credentials live");
    expect(credentialWords("cat ~/etc/otto/creds", env, ["/home/userx/.netrc", "/etc/otto/creds"])).toBe(
      "reading /etc/otto/creds, where credentials live",
    );
  });
  it("nothing named: undefined; a home that is only a prefix of the store's folder does not count", () => {
    expect(credentialWords("cat README.md", env, stores)).toBeUndefined();
    expect(credentialWords("cat ~x/.netrc", env, ["/home/ux/.netrc"])).toBeUndefined();
    expect(credentialWords("cat $HOMEx/.netrc", env, ["/home/ux/.netrc"])).toBeUndefined();
  });
});

describe("aliasesOf and readScript", () => {
  it("the checkout's aliases by lower-case name, values as written; none outside a repository", async () => {
    const root = tmp();
    const env = { ...process.env, HOME: root, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
    execFileSync("git", ["init", "-q", root], { env });
    execFileSync("git", ["-C", root, "config", "alias.ShipIt", "push origin HEAD"], { env });
    execFileSync("git", ["-C", root, "config", "alias.lg", "log --oneline\n--graph"], { env });
    expect(await aliasesOf(root, env, runGit)).toEqual({ shipit: "push origin HEAD", lg: "log --oneline\n--graph" });
    const calls: unknown[] = [];
    const failing = (async (args: readonly string[], options: unknown) => {
      calls.push([args, options]);
      return { exitCode: 1, stdout: "alias.x\ny\0", stderr: "" };
    }) as unknown as typeof runGit;
    expect(await aliasesOf("/nowhere", env, failing)).toEqual({});
    expect(calls).toEqual([[["config", "-z", "--get-regexp", "^alias\\."], { cwd: "/nowhere", env }]]);
    const odd = (async () => ({ exitCode: 0, stdout: "alias.a\nb\0no-newline\0", stderr: "" })) as unknown as typeof runGit;
    expect(await aliasesOf("/x", env, odd)).toEqual({ a: "b" });
  });

  it("a script of up to 256 KiB is read, relative to the command's folder; a bigger one, a folder or a missing file is not", () => {
    const root = tmp();
    fs.writeFileSync(path.join(root, "small.sh"), "git push\n");
    fs.writeFileSync(path.join(root, "edge.sh"), "#".repeat(256 * 1024));
    fs.writeFileSync(path.join(root, "big.sh"), "#".repeat(256 * 1024 + 1));
    fs.mkdirSync(path.join(root, "folder"));
    expect(readScript(root, "small.sh")).toBe("git push\n");
    expect(readScript("/", path.join(root, "small.sh"))).toBe("git push\n");
    expect(readScript(root, "edge.sh")).toHaveLength(256 * 1024);
    expect(readScript(root, "big.sh")).toBeUndefined();
    expect(readScript(root, "folder")).toBeUndefined();
    expect(readScript(root, "missing.sh")).toBeUndefined();
  });
});
