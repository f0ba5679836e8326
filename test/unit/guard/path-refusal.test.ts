import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  configPaths,
  isOpencodeConfigPath,
  pathRefusal,
  resolvedPath,
  workdirRefusal,
  type PathContext,
} from "../../../src/guard/tool-paths.ts";
import { removeAfterTest } from "../../support/git.ts";

/*
 * The rule for OpenCode's file tools, without a session: a path is judged by where it resolves.
 * (tool-paths.test.ts drives the same rule through the session guard, with links a sandboxed shell made.)
 */

function layout() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-path-refusal-")));
  removeAfterTest(root);
  const tree = path.join(root, "tree");
  const keys = path.join(root, "home", ".ssh");
  const config = path.join(root, "home", ".config", "opencode");
  const other = path.join(root, "other");
  for (const dir of [path.join(tree, ".git"), path.join(tree, "src"), keys, config, other]) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(keys, "id_ed25519"), "key");
  fs.writeFileSync(path.join(other, "notes.txt"), "x");
  const context = (patch: Partial<PathContext> = {}): PathContext => ({ tree, hidden: [keys], config: [config], write: false, ...patch });
  return { root, tree, keys, config, other, context };
}

describe("resolvedPath", () => {
  it("a file's real path; one not there yet, its nearest existing folder's real path and the rest", () => {
    const { root, tree } = layout();
    fs.symlinkSync(tree, path.join(root, "link"));
    expect(resolvedPath(path.join(root, "link", "src"))).toBe(path.join(tree, "src"));
    expect(resolvedPath(path.join(root, "link", "new", "deeper", "file.ts"))).toBe(path.join(tree, "new", "deeper", "file.ts"));
    expect(resolvedPath("/nonexistent-otto/a/../b")).toBe("/nonexistent-otto/b");
  });
});

describe("configPaths", () => {
  it("OpenCode's configuration and data, its home folder, otto's configuration and data", () => {
    const { root } = layout();
    const home = path.join(root, "home");
    expect(configPaths({ HOME: home })).toEqual([
      path.join(home, ".config", "opencode"),
      path.join(home, ".local", "share", "opencode"),
      path.join(home, ".opencode"),
      path.join(home, ".config", "otto"),
      path.join(home, ".local", "share", "otto"),
    ]);
  });
});

describe("isOpencodeConfigPath", () => {
  it("a .opencode folder's content and opencode.json(c) at any depth, either slash", () => {
    expect(isOpencodeConfigPath(".opencode/plugin/x.ts")).toBe(true);
    expect(isOpencodeConfigPath("pkg\\.opencode\\tool.ts")).toBe(true);
    expect(isOpencodeConfigPath("web/opencode.jsonc")).toBe(true);
    expect(isOpencodeConfigPath("opencode.json")).toBe(true);
    expect(isOpencodeConfigPath("my-opencode.json")).toBe(false);
    expect(isOpencodeConfigPath("opencode.json.bak")).toBe(false);
    expect(isOpencodeConfigPath("src/opencode.ts")).toBe(false);
  });
});

describe("pathRefusal", () => {
  it("the tree's own files may be read and written, the tree itself too, however spelled", () => {
    const { tree, context } = layout();
    for (const write of [false, true]) {
      expect(pathRefusal("src/a.ts", context({ write }))).toBeUndefined();
      expect(pathRefusal(path.join(tree, "src", "new", "b.ts"), context({ write }))).toBeUndefined();
      expect(pathRefusal(".", context({ write }))).toBeUndefined();
      expect(pathRefusal("src/../..foo/x", context({ write }))).toBeUndefined();
    }
  });

  it("git's directory is refused to reading tools too, at any depth", () => {
    const { context } = layout();
    expect(pathRefusal(".git/config", context())).toBe(".git/config, in git's directory");
    expect(pathRefusal("vendor/lib/.git/config", context({ write: true }), "shown")).toBe("shown, in git's directory");
    expect(pathRefusal("src/.gitignore", context())).toBeUndefined();
    // A folder whose name starts with two dots is inside the tree, not above it.
    expect(pathRefusal("..vendor/.git/config", context())).toBe("..vendor/.git/config, in git's directory");
  });

  it("a secret file the sandbox hides may not be read; the rule names it by the real file's name", () => {
    const { tree, context } = layout();
    const secretName = (name: string) => name === ".env";
    fs.writeFileSync(path.join(tree, ".env"), "K=v");
    fs.symlinkSync(".env", path.join(tree, "harmless.txt"));
    expect(pathRefusal(".env", context({ secretName }))).toBe(".env, a secret file the sandbox hides");
    expect(pathRefusal("harmless.txt", context({ secretName }))).toBe("harmless.txt, a secret file the sandbox hides");
    expect(pathRefusal("src/env.ts", context({ secretName }))).toBeUndefined();
    expect(pathRefusal(".env", context())).toBeUndefined();
    expect(pathRefusal("..backup/.env", context({ secretName }))).toBe("..backup/.env, a secret file the sandbox hides");
  });

  it("writing OpenCode's configuration in the tree is refused, reading it is not", () => {
    const { context } = layout();
    const why = ".opencode/plugin/p.ts: OpenCode configuration, which the next OpenCode start would load outside the sandbox";
    expect(pathRefusal(".opencode/plugin/p.ts", context({ write: true }))).toBe(why);
    expect(pathRefusal("opencode.json", context({ write: true }))).toContain("OpenCode configuration");
    expect(pathRefusal(".opencode/plugin/p.ts", context())).toBeUndefined();
    expect(pathRefusal("..x/opencode.json", context({ write: true }))).toContain("OpenCode configuration");
  });

  it("outside the tree: credential stores and OpenCode's or otto's configuration are refused, by where they resolve", () => {
    const { root, tree, keys, config, context } = layout();
    expect(pathRefusal(path.join(keys, "id_ed25519"), context({ hidden: [path.join(root, "nothing"), keys] }))).toBe(
      `${path.join(keys, "id_ed25519")}, where credentials live`,
    );
    expect(
      pathRefusal(path.join(config, "opencode.json"), context({ write: true, config: [path.join(root, "no-config"), config] }), "cfg"),
    ).toBe(`cfg, in OpenCode's or otto's configuration (${path.join(config, "opencode.json")})`);
    // A store named through a link (a home that is a link) is still the store.
    fs.symlinkSync(path.join(root, "home"), path.join(root, "home-link"));
    expect(pathRefusal(path.join(keys, "id_ed25519"), context({ hidden: [path.join(root, "home-link", ".ssh")] }))).toContain(
      "where credentials live",
    );
    // A hidden path that is gone is refused by its spelling.
    expect(pathRefusal(path.join(root, "gone", "x"), context({ hidden: [path.join(root, "gone")] }))).toContain("where credentials live");
    // A link in the tree to a store: the store's refusal, not only the link's.
    fs.symlinkSync(keys, path.join(tree, "k"));
    expect(pathRefusal("k/id_ed25519", context())).toBe("k/id_ed25519, where credentials live");
  });

  it("a link in the tree that leads outside it is refused; a path outside the tree that no rule names is not", () => {
    const { root, tree, other, context } = layout();
    fs.symlinkSync(other, path.join(tree, "out"));
    expect(pathRefusal("out/notes.txt", context())).toBe(
      `out/notes.txt: a link in the tree leads outside it (to ${path.join(other, "notes.txt")})`,
    );
    expect(pathRefusal(path.join(other, "notes.txt"), context({ write: true }))).toBeUndefined();
    // The tree named through a link: its files are still its own.
    fs.symlinkSync(tree, path.join(root, "tree-link"));
    expect(pathRefusal("src/a.ts", context({ tree: path.join(root, "tree-link") }))).toBeUndefined();
    expect(pathRefusal("out/notes.txt", context({ tree: path.join(root, "tree-link") }))).toContain("a link in the tree leads outside it");
    // A link to the tree's parent leads outside it too.
    fs.symlinkSync(root, path.join(tree, "up"));
    expect(pathRefusal("up", context())).toBe(`up: a link in the tree leads outside it (to ${root})`);
    // A sibling whose name starts like the tree's is outside it.
    fs.mkdirSync(path.join(root, "tree2"));
    expect(pathRefusal(path.join(root, "tree2", "f"), context())).toBeUndefined();
  });
});

describe("workdirRefusal", () => {
  it("a workdir inside the tree (the tree itself, a folder, a link to a folder inside, a folder named ..x) runs; one that resolves outside is refused, saying how", () => {
    const { root, tree, other } = layout();
    fs.symlinkSync(path.join(tree, "src"), path.join(tree, "s"));
    fs.symlinkSync(other, path.join(tree, "out"));
    fs.symlinkSync(tree, path.join(root, "tree-link"));
    const judge = (spelled: string, at = tree) => workdirRefusal(spelled, resolvedPath(spelled), at);
    expect(judge(tree)).toBeUndefined();
    expect(judge(path.join(tree, "src"))).toBeUndefined();
    expect(judge(path.join(tree, "s"))).toBeUndefined();
    expect(judge(path.join(tree, "..x"))).toBeUndefined();
    // The tree spelled through a link: judged where it resolves too.
    expect(judge(path.join(root, "tree-link", "src"), path.join(root, "tree-link"))).toBeUndefined();
    expect(judge(path.join(tree, "out"))).toBe(
      `running a command in ${path.join(tree, "out")}: a link in the tree leads outside it (to ${other})`,
    );
    expect(judge(other)).toBe(`running a command in ${other}, outside the session's folder (${tree})`);
    expect(judge(path.join(tree, ".."))).toBe(`running a command in ${root}, outside the session's folder (${tree})`);
  });
});
