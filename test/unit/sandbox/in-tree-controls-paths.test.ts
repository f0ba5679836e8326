import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitConfigFiles, inTreeControls, missingConfigIncludes, treeConfigFiles } from "../../../src/sandbox/in-tree-controls.ts";
import { removeAfterTest } from "../../support/git.ts";

/*
 * Which folders of the tree are made read-only inside the sandbox (in-tree-controls.test.ts shows
 * them read-only under real bubblewrap): PATH entries inside the tree and an in-tree hooks folder,
 * as git would find core.hooksPath.
 */

function layout() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-in-tree-")));
  removeAfterTest(root);
  const tree = path.join(root, "tree");
  const common = path.join(tree, ".git");
  const worktree = path.join(common, "worktrees", "w");
  fs.mkdirSync(worktree, { recursive: true });
  fs.mkdirSync(path.join(tree, ".venv", "bin"), { recursive: true });
  const config = (file: string, hooks: string | undefined) =>
    fs.writeFileSync(file, hooks === undefined ? "[core]\n\tbare = false\n" : `[core]\n\thooksPath = ${hooks}\n`);
  return { root, tree, common, worktree, config };
}

describe("inTreeControls", () => {
  it("PATH entries inside the tree (through a link too), each once; not the tree itself, relative or outside entries", () => {
    const { root, tree } = layout();
    fs.symlinkSync(path.join(tree, ".venv", "bin"), path.join(root, "venv-link"));
    const PATH = [
      path.join(tree, ".venv", "bin"),
      path.join(root, "venv-link"),
      tree,
      "",
      ".venv/bin",
      "/usr/bin",
      path.join(tree, "missing"),
    ].join(path.delimiter);
    expect(inTreeControls(tree, [], { PATH })).toEqual([path.join(tree, ".venv", "bin"), path.join(tree, "missing")]);
    expect(inTreeControls(tree, [], {})).toEqual([]);
    // A relative entry is skipped even where, from the working folder, it leads into the tree.
    expect(inTreeControls(tree, [], { PATH: path.relative(process.cwd(), path.join(tree, ".venv", "bin")) })).toEqual([]);
  });

  it("core.hooksPath: the worktree's own config first, then the repository's, then the user's settings", () => {
    const { tree, common, worktree, config } = layout();
    const settings = path.join(tree, "..", "gitconfig");
    config(path.join(common, "config"), ".husky/_");
    config(path.join(worktree, "config.worktree"), "hooks/worktree");
    config(settings, "hooks/user");
    expect(inTreeControls(tree, [common, worktree], {}, settings)).toEqual([path.join(tree, "hooks", "worktree")]);
    fs.rmSync(path.join(worktree, "config.worktree"));
    expect(inTreeControls(tree, [common, worktree], {}, settings)).toEqual([path.join(tree, ".husky", "_"), path.join(tree, ".husky")]);
    fs.rmSync(path.join(common, "config"));
    expect(inTreeControls(tree, [common, worktree], {}, settings)).toEqual([path.join(tree, "hooks", "user")]);
    expect(inTreeControls(tree, [common, worktree], {})).toEqual([]);
  });

  it("within one git directory, config.worktree before config; an empty value counts as none", () => {
    const { tree, common, config } = layout();
    config(path.join(common, "config"), "from-config");
    config(path.join(common, "config.worktree"), "from-worktree");
    expect(inTreeControls(tree, [common], {})).toEqual([path.join(tree, "from-worktree")]);
    fs.writeFileSync(path.join(common, "config.worktree"), '[core]\n\thooksPath = ""\n');
    fs.utimesSync(path.join(common, "config.worktree"), new Date(), new Date(Date.now() + 5_000));
    expect(inTreeControls(tree, [common], {})).toEqual([path.join(tree, "from-config")]);
  });

  it("a hooks folder outside the tree, or the tree itself, is not made read-only; ~/ is the home's", () => {
    const { root, tree, common, config } = layout();
    config(path.join(common, "config"), path.join(root, "elsewhere"));
    expect(inTreeControls(tree, [common], {})).toEqual([]);
    config(path.join(common, "config"), ".");
    fs.utimesSync(path.join(common, "config"), new Date(), new Date(Date.now() + 10_000));
    expect(inTreeControls(tree, [common], {})).toEqual([]);
    config(path.join(common, "config"), "~/hooks");
    fs.utimesSync(path.join(common, "config"), new Date(), new Date(Date.now() + 20_000));
    expect(inTreeControls(tree, [common], { HOME: tree })).toEqual([path.join(tree, "hooks")]);
    expect(inTreeControls(tree, [common], { HOME: root })).toEqual([]);
    // Without HOME, ~/ is the root folder's, never the tree's.
    expect(inTreeControls(tree, [common], {})).toEqual([]);
  });

  it("a changed config is read again; an unchanged one is not", () => {
    const { tree, common, config } = layout();
    const file = path.join(common, "config");
    config(file, "first");
    const at = new Date(Date.now() - 60_000);
    fs.utimesSync(file, at, at);
    expect(inTreeControls(tree, [common], {})).toEqual([path.join(tree, "first")]);
    // Rewritten with the same times: still the first answer (read once per file state).
    config(file, "second");
    fs.utimesSync(file, at, at);
    expect(inTreeControls(tree, [common], {})).toEqual([path.join(tree, "first")]);
    fs.utimesSync(file, new Date(), new Date());
    expect(inTreeControls(tree, [common], {})).toEqual([path.join(tree, "second")]);
  });
});

describe("git config files where the sandbox writes", () => {
  it("what the tree's config includes (a chain, a link into the tree, a git directory's own file), not the git directories' own config files, nothing outside", () => {
    const { root, tree, common } = layout();
    const home = path.join(root, "home");
    fs.mkdirSync(home);
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
    fs.writeFileSync(path.join(common, "config"), "[include]\n\tpath = ../.gitconfig\n\tpath = extra.config\n\tpath = ~/outside.config\n");
    fs.writeFileSync(path.join(common, "config.worktree"), "[core]\n\tbare = false\n");
    fs.writeFileSync(path.join(tree, ".gitconfig"), '[includeIf "onbranch:x"]\n\tpath = .gitconfig.d/merge\n\tpath = missing.config\n');
    fs.mkdirSync(path.join(tree, ".gitconfig.d"));
    fs.writeFileSync(path.join(tree, ".gitconfig.d", "merge"), "[merge]\n\ttool = x\n");
    fs.writeFileSync(path.join(common, "extra.config"), "[core]\n\tabbrev = 9\n");
    fs.writeFileSync(path.join(home, "outside.config"), `[include]\n\tpath = ${root}/link.config\n`);
    fs.symlinkSync(path.join(tree, "linked.config"), path.join(root, "link.config"));
    fs.writeFileSync(path.join(tree, "linked.config"), "[core]\n\tabbrev = 10\n");
    const inTree = [
      path.join(tree, ".gitconfig"),
      path.join(tree, ".gitconfig.d", "merge"),
      path.join(common, "extra.config"),
      path.join(tree, "linked.config"),
    ];
    expect(treeConfigFiles(tree, [common], env)).toEqual(inTree);
    expect(inTreeControls(tree, [common], env)).toEqual(inTree);
    expect(gitConfigFiles([common], env)).toEqual([
      path.join(common, "config"),
      ...inTree.slice(0, 3),
      path.join(home, "outside.config"),
      inTree[3],
      path.join(common, "config.worktree"),
    ]);
  });

  it("missing includes where sandboxed code could make them (the tree, a git directory); not one outside, not a git directory's own missing config.worktree, not one behind a file", () => {
    const { root, tree, common } = layout();
    const home = path.join(root, "home");
    fs.mkdirSync(home);
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
    fs.writeFileSync(path.join(tree, "README.md"), "hello\n");
    fs.writeFileSync(
      path.join(common, "config"),
      "[include]\n\tpath = ../.gitconfig.local\n\tpath = absent.config\n\tpath = ~/nowhere.config\n\tpath = ../README.md/x\n\tpath = ../.gitconfig\n",
    );
    fs.writeFileSync(path.join(tree, ".gitconfig"), "[include]\n\tpath = deeper/missing.config\n");
    expect(missingConfigIncludes(tree, [common], env).sort()).toEqual(
      [path.join(tree, ".gitconfig.local"), path.join(common, "absent.config"), path.join(tree, "deeper", "missing.config")].sort(),
    );
    // Only where the sandbox writes: with a subfolder as the tree, the top's file is the user's matter.
    expect(missingConfigIncludes(path.join(tree, "sub"), [common], env)).toEqual([path.join(common, "absent.config")]);
  });

  it("the user's global files and what they include: a dotfiles checkout as the tree, a global file that is a link into it; another writable folder", () => {
    const { root, tree } = layout();
    const home = path.join(root, "home");
    fs.mkdirSync(path.join(home, ".config", "git"), { recursive: true });
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
    fs.writeFileSync(path.join(tree, "gitconfig"), "[alias]\n\tlg = log\n");
    fs.writeFileSync(path.join(home, ".gitconfig"), `[include]\n\tpath = ${tree}/gitconfig\n`);
    expect(treeConfigFiles(tree, [], env)).toEqual([path.join(tree, "gitconfig")]);
    fs.rmSync(path.join(home, ".gitconfig"));
    fs.symlinkSync(path.join(tree, "gitconfig"), path.join(home, ".gitconfig"));
    expect(treeConfigFiles(tree, [], env)).toEqual([path.join(tree, "gitconfig")]);
    // GIT_CONFIG_GLOBAL in place of ~/.gitconfig; the XDG file as well.
    const elsewhere = path.join(root, "allowed");
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(elsewhere, "global"), "[user]\n\tname = n\n");
    fs.writeFileSync(path.join(home, ".config", "git", "config"), "[include]\n\tpath = ../../xdg.config\n");
    fs.writeFileSync(path.join(home, "xdg.config"), "[user]\n\temail = e\n");
    const global = { ...env, GIT_CONFIG_GLOBAL: path.join(elsewhere, "global") };
    expect(treeConfigFiles(tree, [], global)).toEqual([]);
    expect(treeConfigFiles(tree, [], global, [elsewhere, home])).toEqual([
      path.join(elsewhere, "global"),
      path.join(home, ".config", "git", "config"),
      path.join(home, "xdg.config"),
    ]);
    expect(inTreeControls(tree, [], global, undefined, [elsewhere])).toEqual([path.join(elsewhere, "global")]);
  });

  it("a hooks path an included file names is read-only too, wherever that file lies, beside the one that wins", () => {
    const { root, tree, common, config } = layout();
    const home = path.join(root, "home");
    fs.mkdirSync(home);
    config(path.join(common, "config"), ".husky/_");
    fs.appendFileSync(path.join(common, "config"), `[include]\n\tpath = ../.gitconfig\n\tpath = ${root}/outside.config\n`);
    config(path.join(tree, ".gitconfig"), ".githooks");
    config(path.join(root, "outside.config"), "~/hooks");
    expect(inTreeControls(tree, [common], { HOME: tree })).toEqual([
      path.join(tree, ".husky", "_"),
      path.join(tree, ".husky"),
      path.join(tree, ".githooks"),
      path.join(tree, "hooks"),
      path.join(tree, ".gitconfig"),
    ]);
  });

  it("an include that is a folder or a FIFO (sandboxed code can make one) is not read", () => {
    const { tree, common } = layout();
    fs.mkdirSync(path.join(tree, "folder.config"));
    execFileSync("mkfifo", [path.join(tree, "fifo.config")]);
    fs.writeFileSync(path.join(common, "config"), "[include]\n\tpath = ../folder.config\n\tpath = ../fifo.config\n");
    expect(treeConfigFiles(tree, [common], { HOME: path.join(tree, "none") })).toEqual([]);
  });

  it("includes ten deep as git reads them, each file once", () => {
    const { tree, common } = layout();
    for (let i = 1; i <= 12; i++)
      fs.writeFileSync(path.join(tree, `${i}.config`), `[include]\n\tpath = ${i + 1}.config\n\tpath = 1.config\n`);
    fs.writeFileSync(path.join(common, "config"), "[include]\n\tpath = ../1.config\n");
    expect(treeConfigFiles(tree, [common], { HOME: path.join(tree, "none") })).toEqual(
      Array.from({ length: 10 }, (_, i) => path.join(tree, `${i + 1}.config`)),
    );
  });
});
