import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { realPath, runtimePaths, storePaths, toolchainPaths } from "../../../src/sandbox/home.ts";
import { credentialPaths } from "../../../src/sandbox/credential-paths.ts";
import { sandboxPolicy, within } from "../../../src/sandbox/policy.ts";

/*
 * policy.ts read directly: `sandboxPolicy`'s whole output for a home and trees built in a temp
 * folder (a plain repository, a linked worktree of otto's beside the user's others, a folder
 * outside git), nothing run in a sandbox. access.test.ts and sandbox.test.ts run policies in real
 * bubblewrap.
 */

const temps: string[] = [];
afterEach(() => {
  for (const temp of temps.splice(0)) fs.rmSync(temp, { recursive: true, force: true });
});

/** A temp folder (its real path) holding `files` (content, or `{ link }` for a symlink), parents made. */
function folder(files: Record<string, string | { link: string }> = {}): string {
  const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-policy-direct-")));
  temps.push(top);
  for (const [rel, content] of Object.entries(files)) {
    const at = path.join(top, rel);
    fs.mkdirSync(path.dirname(at), { recursive: true });
    if (typeof content === "string") fs.writeFileSync(at, content);
    else
      fs.symlinkSync(typeof content.link === "string" && path.isAbsolute(content.link) ? content.link : path.join(top, content.link), at);
  }
  return top;
}

const dirs = (top: string, ...rels: string[]) => {
  for (const rel of rels) fs.mkdirSync(path.join(top, rel), { recursive: true });
};

/** The top-level links of the system's runtime folder (machine's own: `/run/shm` in a container). */
function runLinks(): Array<{ path: string; link: string }> {
  if (!fs.existsSync("/run")) return [];
  return fs
    .readdirSync("/run")
    .map((name) => path.join("/run", name))
    .filter((p) => fs.lstatSync(p).isSymbolicLink())
    .map((p) => ({ path: p, link: fs.readlinkSync(p) }));
}
// Where `/var/run` is a link to `/run` (most Linux systems), one runtime folder.
const oneRun = fs.existsSync("/run") && fs.existsSync("/var/run") && fs.realpathSync("/var/run") === "/run";
const uid = process.getuid?.();

const GIT_CONTROLS = ["config", "config.worktree", "hooks", "info", "commondir", "gitdir", "modules"];
const TREE_CONTROLS = [
  ".opencode",
  "opencode.json",
  "opencode.jsonc",
  ".pre-commit-config.yaml",
  "lefthook.yml",
  "lefthook.yaml",
  ".lefthook.yml",
  ".lefthook.yaml",
  "lefthook-local.yml",
  "lefthook-local.yaml",
  ".lefthook-local.yml",
  ".lefthook-local.yaml",
];

describe("credentialPaths", () => {
  it("every store otto knows, from the home and XDG folders, the env's own folders, nvm's global npmrc per version that has one; unique and resolved", () => {
    const top = folder({
      "h/.nvm/versions/node/v20.1.0/bin/node": "",
      "h/.nvm/versions/node/v20.1.0/etc/npmrc": "",
      "h/.nvm/versions/node/v22.0.0/etc/npmrc": "",
    });
    const h = path.join(top, "h");
    const H = (...p: string[]) => path.join(h, ...p);
    const base = { HOME: h };
    const C = (...p: string[]) => H(".config", ...p);
    const D = (...p: string[]) => H(".local", "share", ...p);
    const all = credentialPaths(base);
    expect(all.slice(-2).sort()).toEqual([
      H(".nvm", "versions", "node", "v20.1.0", "etc", "npmrc"),
      H(".nvm", "versions", "node", "v22.0.0", "etc", "npmrc"),
    ]);
    expect(all.slice(0, -2)).toEqual([
      H(".ssh"),
      H(".gnupg"),
      H(".git-credentials"),
      C("git", "credentials"),
      H(".netrc"),
      H(".npmrc"),
      H(".yarnrc.yml"),
      H(".pypirc"),
      H(".docker", "config.json"),
      H(".aws"),
      H(".azure"),
      H(".kube"),
      C("gh"),
      C("hub"),
      C("gcloud"),
      C("otto"),
      D("otto"),
      D("opencode", "auth.json"),
      D("opencode", "mcp-auth.json"),
      H(".gem", "credentials"),
      D("gem", "credentials"),
      D("uv", "credentials"),
      C("pypoetry", "auth.toml"),
      H(".yarnrc"),
      H(".cargo", "credentials"),
      H(".cargo", "credentials.toml"),
      H(".m2", "settings.xml"),
      H(".m2", "settings-security.xml"),
      H(".gradle", "gradle.properties"),
      H(".nuget", "NuGet", "NuGet.Config"),
      C("NuGet", "NuGet.Config"),
      H(".terraform.d", "credentials.tfrc.json"),
      C("containers", "auth.json"),
    ]);
    // The environment's own folders; relative ones resolved; a name given twice once.
    const moved = credentialPaths({
      HOME: h,
      XDG_CONFIG_HOME: "/c",
      XDG_DATA_HOME: "/d",
      CARGO_HOME: "/cargo",
      GRADLE_USER_HOME: "/gradle",
      NVM_DIR: path.join(top, "none"),
      GH_CONFIG_DIR: "/gh",
      AZURE_CONFIG_DIR: "/az",
      NPM_CONFIG_USERCONFIG: "/c/../npmrc",
      SSH_AUTH_SOCK: "/agent.sock",
    });
    expect(moved).toEqual(
      expect.arrayContaining(["/c/git/credentials", "/d/opencode/auth.json", "/cargo/credentials", "/cargo/credentials.toml"]),
    );
    expect(moved).toContain("/gradle/gradle.properties");
    expect(moved.slice(-4)).toEqual(["/gh", "/az", "/npmrc", "/agent.sock"]);
    // No nvm folder: no npmrc of it, and nothing else in its place.
    expect(moved).toHaveLength(37);
    expect(credentialPaths({ HOME: h, XDG_CONFIG_HOME: "/c", GH_CONFIG_DIR: "/c/gh" }).filter((p) => p === "/c/gh")).toHaveLength(1);
    expect(credentialPaths({ HOME: h, NVM_DIR: "", CARGO_HOME: "", GRADLE_USER_HOME: "" })).toEqual(credentialPaths(base));
  });

  it("a token's settings file in any toolchain folder shown read-only: every version manager's global npmrc, pip.conf, condarc; not inside an install's content folders, links or deeper than Volta's", () => {
    const token = "//registry.npmjs.org/:_authToken=t\n";
    const found = {
      ".local/share/fnm/node-versions/v20.11.0/installation/etc/npmrc": token,
      ".local/share/mise/installs/node/20.11.0/etc/npmrc": token,
      ".local/share/mise/installs/python/3.12/pip.ini": "",
      ".asdf/installs/nodejs/20.11.0/etc/npmrc": token,
      ".nodenv/versions/20.11.0/etc/npmrc": token,
      ".nodenv/versions/18.0.0/.npmrc": token,
      ".volta/tools/image/node/20.11.0/etc/npmrc": token,
      ".pyenv/versions/3.11.7/pip.conf": "",
      ".pyenv/versions/miniconda3-latest/.condarc": "",
      ".pyenv/versions/miniconda3-latest/envs/x/condarc": "",
    };
    const INSTALL_CONTENT = [
      "bin",
      "lib",
      "lib64",
      "libexec",
      "include",
      "share",
      "man",
      "src",
      "pkg",
      "pkgs",
      "node_modules",
      "site-packages",
      ".git",
    ];
    const top = folder({
      ...Object.fromEntries(Object.entries(found).map(([rel, text]) => [`h/${rel}`, text])),
      // An install's content folders are not read: npm's own builtin npmrc, a package's files.
      ...Object.fromEntries(INSTALL_CONTENT.map((name) => [`h/.nodenv/versions/20.11.0/${name}/npmrc`, ""])),
      // One folder deeper than Volta's installs, a link to a folder (not followed), other names.
      "h/.volta/tools/image/node/20.11.0/etc/deeper/npmrc": "",
      "elsewhere/npmrc": "",
      "h/.nodenv/versions/linked": { link: "elsewhere" },
      "h/.nodenv/versions/20.11.0/etc/npmrc.bak": "",
      "h/.nodenv/versions/20.11.0/pip.conf/x": "",
    });
    const h = path.join(top, "h");
    // After the stores every home has, in the order the folder reads give.
    const configs = credentialPaths({ HOME: h }).slice(credentialPaths({ HOME: path.join(top, "none") }).length);
    expect(configs.sort()).toEqual(
      Object.keys(found)
        .map((rel) => path.join(h, rel))
        .sort(),
    );
  });
});

describe("sandboxPolicy's whole output", () => {
  it("a repository in a home of its own: the tree, the home's toolchains and stores, allow lists, secrets, read-only controls, runtime folders", () => {
    const top = folder({
      "h/.nvm/versions/node/v22.0.0/bin/node": "",
      "h/.aws/credentials": "",
      "aws-real/credentials": "",
      "repo/.git/config": "[core]\n\thooksPath = .githooks\n",
      "repo/.git/HEAD": "ref: refs/heads/main\n",
      // A linked worktree of the user's: its git directory read-only.
      "repo/.git/worktrees/other/HEAD": "",
      "repo/.env": "TOKEN=1\n",
      "repo/src/.env.local": "TOKEN=2\n",
      "repo/bin/tool": "",
      "gitconfig-real": "",
      "ignore-real": "",
    });
    const h = path.join(top, "h");
    const repo = path.join(top, "repo");
    fs.rmSync(path.join(h, ".aws"), { recursive: true });
    fs.symlinkSync(path.join(top, "aws-real"), path.join(h, ".aws"));
    fs.symlinkSync(repo, path.join(top, "repo-link"));
    fs.symlinkSync(path.join(top, "ignore-real"), path.join(top, "ignore-link"));
    dirs(top, "repo/.githooks", "tmpdir", "h/.config", "h/.cache/tool");
    const env = {
      HOME: h,
      TMPDIR: path.join(top, "tmpdir"),
      // Go built from its own tree: the toolchain and the store inside the tree stay the tree's (writable).
      GOROOT: repo,
      DENO_DIR: path.join(repo, ".git"),
      PATH: [path.join(repo, "bin"), "/usr/bin", "relative/bin", "/run/lock", "/run/lock", "/run", "/run/otto-none", "/run/adduser"].join(
        ":",
      ),
    };
    const policy = sandboxPolicy({
      cwd: path.join(top, "repo-link", "src", "..", "src"),
      tree: { root: path.join(top, "repo-link"), gitDirs: [path.join(top, "repo-link", ".git"), path.join(repo, ".git")] },
      env,
      access: {
        network: "none",
        allow_read: [".env", path.join(h, ".npmrc"), path.join(h, ".local", "share", "otto", "sandbox")],
        // The whole config folder: its stores shown, otto's config in it hidden still.
        allow_write: [path.join(h, ".config"), path.join(h, ".cache", "tool"), path.join(top, "repo-link", "out")],
        allow_ports: [5432],
      },
      git: { file: path.join(top, "gitconfig-real"), files: [path.join(top, "ignore-link"), path.join(top, "ignore-real")] },
    });
    const tree = [repo, path.join(repo, ".git")];
    const otto = [path.join(h, ".config", "otto"), path.join(h, ".local", "share", "otto")];
    const secrets = [path.join(repo, "src", ".env.local")];
    const allowedAll = [
      path.join(repo, ".env"),
      path.join(h, ".npmrc"),
      path.join(h, ".config"),
      path.join(h, ".cache", "tool"),
      path.join(repo, "out"),
    ];
    const hidden = [...new Set([...credentialPaths(env), ...runtimePaths(env), path.join(repo, ".env"), ...secrets].map(realPath))].filter(
      (p) => otto.includes(p) || !allowedAll.some((a) => within(p, a)),
    );
    expect(policy).toEqual({
      cwd: path.join(top, "repo-link", "src"),
      tree,
      // The home lies in a temp folder: hidden with it, not mounted.
      home: undefined,
      toolchains: [...new Set(toolchainPaths(env).map(realPath))].filter((p) => p !== repo),
      caches: [...new Set(storePaths(env).map(realPath))].filter((p) => p !== path.join(repo, ".git")),
      allowRead: [path.join(repo, ".env"), path.join(h, ".npmrc")],
      allowWrite: [path.join(h, ".config"), path.join(h, ".cache", "tool"), path.join(repo, "out")],
      readOnly: [
        ...GIT_CONTROLS.map((name) => path.join(repo, ".git", name)),
        // The folder of the user's linked worktrees' git directories, as a whole.
        path.join(repo, ".git", "worktrees"),
        ...TREE_CONTROLS.map((name) => path.join(repo, name)),
        path.join(repo, "bin"),
        path.join(repo, ".githooks"),
      ],
      hidden,
      privateTemp: ["/tmp", "/var/tmp", path.join(top, "tmpdir")],
      ...(oneRun
        ? { emptyRun: ["/run"], runKeep: [...runLinks(), ...(fs.existsSync("/run/lock") ? [{ path: "/run/lock" }] : [])] }
        : { emptyRun: expect.any(Array) as unknown, runKeep: expect.any(Array) as unknown }),
      network: "none",
      ports: [5432],
      // Shown as the empty home's ~/.gitconfig (in a temp folder, the home is not replaced but hidden).
      gitConfig: path.join(top, "gitconfig-real"),
      gitConfigAt: path.join(h, ".gitconfig"),
      gitFiles: [path.join(top, "ignore-real")],
      configViews: [],
    });
    // What the lists are made of, spelled out: the links resolved, the tree's own store and toolchain writable.
    expect(policy.toolchains).toContain(path.join(h, ".nvm"));
    expect(policy.toolchains).not.toContain(repo);
    expect(policy.caches).toContain(path.join(h, ".npm"));
    expect(policy.caches).not.toContain(path.join(repo, ".git"));
    expect(policy.hidden).toContain(path.join(top, "aws-real"));
    expect(policy.hidden).not.toContain(path.join(h, ".aws"));
    expect(policy.hidden).toEqual(expect.arrayContaining([...otto, ...secrets, path.join(h, ".ssh"), `/run/user/${uid}`]));
    expect(policy.hidden).not.toContain(path.join(repo, ".env"));
    expect(policy.hidden).not.toContain(path.join(h, ".npmrc"));
    expect(policy.hidden).not.toContain(path.join(h, ".config", "gh"));
    expect(policy.allowRead).not.toContain(path.join(h, ".local", "share", "otto", "sandbox"));
    // The git settings' file is not shown where the home is not (the global settings come with the home).
    expect(
      sandboxPolicy({ cwd: repo, tree: { root: repo, gitDirs: [] }, env: { HOME: "/" }, git: { file: "/g", files: [] } }),
    ).toMatchObject({
      home: undefined,
      gitConfig: undefined,
      gitConfigAt: undefined,
    });
  });

  it("a home outside the temp folders is replaced by an empty one, with the user's git settings as its ~/.gitconfig; defaults: network open, no port", () => {
    const top = folder({ "repo/.git/config": "", settings: "" });
    const repo = path.join(top, "repo");
    // A home that does not exist (its parent neither): nothing to resolve, and outside /tmp.
    const home = `/nonexistent-otto-home-${path.basename(top)}/u`;
    const env = { HOME: home, PATH: "/usr/bin" };
    const policy = sandboxPolicy({
      cwd: repo,
      tree: { root: repo, gitDirs: [path.join(repo, ".git")] },
      env,
      git: { file: path.join(top, "settings"), files: [] },
    });
    expect(policy).toMatchObject({
      home,
      network: "open",
      ports: [],
      allowRead: [],
      allowWrite: [],
      gitConfig: path.join(top, "settings"),
      gitConfigAt: path.join(home, ".gitconfig"),
      gitFiles: [],
      privateTemp: ["/tmp", "/var/tmp"],
    });
    expect(policy.toolchains).toEqual(toolchainPaths(env));
    expect(policy.hidden).toEqual([...new Set([...credentialPaths(env), ...runtimePaths(env)].map(realPath))]);
    // No git settings: none shown.
    expect(sandboxPolicy({ cwd: repo, tree: { root: repo, gitDirs: [] }, env })).toMatchObject({
      gitConfig: undefined,
      gitConfigAt: undefined,
      gitFiles: [],
    });
  });

  it("otto's linked worktree: both git directories' controls, its `.git` file, the worktrees folder, the main checkout's HEAD and index, the shared refs; otto's folders never allowed", () => {
    const top = folder({
      "common/config": "",
      "common/HEAD": "",
      "common/worktrees/otto-1/HEAD": "",
      "common/worktrees/user-a/HEAD": "",
      "common/worktrees/user-b/HEAD": "",
      "wt/.git": "gitdir: ../common/worktrees/otto-1\n",
      "wt/src/a.ts": "",
    });
    fs.symlinkSync(path.join(top, "common"), path.join(top, "common-link"));
    const wt = path.join(top, "wt");
    const own = path.join(top, "common", "worktrees", "otto-1");
    const common = path.join(top, "common");
    const h = path.join(top, "h");
    const env = { HOME: h, XDG_CONFIG_HOME: path.join(top, "cfg"), XDG_DATA_HOME: path.join(top, "data"), PATH: "/usr/bin" };
    const policy = sandboxPolicy({
      cwd: path.join(wt, "src"),
      tree: { root: wt, gitDirs: [own, common], sharedCommon: path.join(top, "common-link") },
      env,
      access: {
        network: "open",
        allow_read: [path.join(top, "cfg")],
        allow_write: [path.join(top, "data", "otto", "x"), path.join(top, "data")],
      },
    });
    expect(policy.tree).toEqual([wt, own, common]);
    expect(policy.readOnly).toEqual([
      ...GIT_CONTROLS.map((name) => path.join(own, name)),
      ...GIT_CONTROLS.map((name) => path.join(common, name)),
      path.join(wt, ".git"),
      path.join(common, "worktrees"),
      path.join(common, "HEAD"),
      path.join(common, "index"),
      ...TREE_CONTROLS.map((name) => path.join(wt, name)),
      ...["refs", "packed-refs", "logs"].map((name) => path.join(common, name)),
    ]);
    expect(policy.allowRead).toEqual([path.join(top, "cfg")]);
    expect(policy.allowWrite).toEqual([path.join(top, "data")]);
    expect(policy.hidden).toEqual(expect.arrayContaining([path.join(top, "cfg", "otto"), path.join(top, "data", "otto")]));
    expect(policy.hidden).not.toContain(path.join(top, "cfg", "gh"));
    expect(policy.hidden).not.toContain(path.join(top, "data", "opencode", "auth.json"));
    expect(policy.network).toBe("open");
    expect(policy.ports).toEqual([]);

    // A linked worktree of the user's (no shared common folder): the worktrees folder from the last
    // git directory, the main checkout's HEAD and index; the refs stay writable for its commits.
    const plain = sandboxPolicy({ cwd: wt, tree: { root: wt, gitDirs: [own, common] }, env });
    expect(plain.readOnly).toEqual([
      ...GIT_CONTROLS.map((name) => path.join(own, name)),
      ...GIT_CONTROLS.map((name) => path.join(common, name)),
      path.join(wt, ".git"),
      path.join(common, "worktrees"),
      path.join(common, "HEAD"),
      path.join(common, "index"),
      ...TREE_CONTROLS.map((name) => path.join(wt, name)),
    ]);
    // A common folder without worktrees: no worktrees folder.
    fs.rmSync(path.join(common, "worktrees"), { recursive: true });
    expect(sandboxPolicy({ cwd: wt, tree: { root: wt, gitDirs: [own, common] }, env }).readOnly).toEqual([
      ...GIT_CONTROLS.map((name) => path.join(own, name)),
      ...GIT_CONTROLS.map((name) => path.join(common, name)),
      path.join(wt, ".git"),
      path.join(common, "HEAD"),
      path.join(common, "index"),
      ...TREE_CONTROLS.map((name) => path.join(wt, name)),
    ]);
  });

  it("a config file .git/config includes from an allow_write folder is read-only, and its own includes are not followed for views", () => {
    const top = folder({
      "repo/.git/config": "[include]\n\tpath = ../../dots/inc\n",
      "repo/.git/HEAD": "ref: refs/heads/main\n",
      "dots/inc": "[credential]\n\thelper = x\n[include]\n\tpath = ../h/creds.config\n",
      "h/creds.config": "[credential]\n\thelper = y\n",
    });
    const repo = path.join(top, "repo");
    const dots = path.join(top, "dots");
    const env = { HOME: path.join(top, "h"), XDG_DATA_HOME: path.join(top, "data") };
    const tree = { root: repo, gitDirs: [path.join(repo, ".git")] };
    const access = { network: "open" as const, allow_read: [], allow_write: [dots] };
    const policy = sandboxPolicy({ cwd: repo, tree, env, access });
    expect(policy.readOnly).toContain(path.join(dots, "inc"));
    expect(policy.configViews.map((v) => v.file)).toEqual([path.join(dots, "inc")]);
    // Not writable inside: neither read-only nor left unfollowed.
    const closed = sandboxPolicy({ cwd: repo, tree, env });
    expect(closed.readOnly).not.toContain(path.join(dots, "inc"));
    expect(closed.configViews.map((v) => v.file)).toEqual([path.join(top, "h", "creds.config"), path.join(dots, "inc")]);
  });

  it("a folder outside git: the folder alone, no git controls, no `.git`, no worktrees", () => {
    const top = folder({ "plain/.env": "X=1\n", "plain/.git/worktrees/other/HEAD": "" });
    const plain = path.join(top, "plain");
    const policy = sandboxPolicy({ cwd: plain, tree: { root: plain, gitDirs: [] }, env: { HOME: path.join(top, "h"), PATH: "" } });
    expect(policy.tree).toEqual([plain]);
    expect(policy.readOnly).toEqual(TREE_CONTROLS.map((name) => path.join(plain, name)));
    expect(policy.hidden).toContain(path.join(plain, ".env"));
    expect(policy.configViews).toEqual([]);
  });
});

describe("the tree's secret files", () => {
  it("read with the repository's index: one it tracks as it is stays visible, one it does not is hidden", () => {
    const top = folder({ "repo/.env": "PUBLIC=1\n", "repo/.env.local": "TOKEN=2\n" });
    const repo = path.join(top, "repo");
    execFileSync("git", ["init", "-q", repo]);
    execFileSync("git", ["-C", repo, "add", ".env"]);
    const policy = sandboxPolicy({
      cwd: repo,
      tree: { root: repo, gitDirs: [path.join(repo, ".git")] },
      env: { HOME: path.join(top, "h") },
    });
    expect(policy.hidden).toContain(path.join(repo, ".env.local"));
    expect(policy.hidden).not.toContain(path.join(repo, ".env"));
  });
});

describe("within", () => {
  it("the folder itself and what lies inside, a name starting with `..` included; not its parent, a sibling or another root", () => {
    expect(within("/a/b", "/a/b")).toBe(true);
    expect(within("/a/b/c", "/a/b")).toBe(true);
    expect(within("/a/b/..x", "/a/b")).toBe(true);
    expect(within("/a", "/a/b")).toBe(false);
    expect(within("/a/bc", "/a/b")).toBe(false);
    expect(within("/a/c/d", "/a/b")).toBe(false);
  });
});
