import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bwrapArgs, pathKind, type PathKind } from "../../../src/sandbox/bwrap.ts";
import type { SandboxPolicy } from "../../../src/sandbox/policy.ts";
import { removeAfterTest } from "../../support/git.ts";

/*
 * bubblewrap's arguments for a policy written out whole: every step of the mount order, each path
 * kind, and what is skipped (missing, inside a private temp folder, in a hidden folder, in the
 * empty home unless a bound folder shows it again).
 */

const DIRS = [
  "/tmp",
  "/h/u",
  "/x/store",
  "/tmp/held",
  "/tmp/held/out",
  "/h/u/.ssh",
  "/x/secret-dir",
  "/x/secret-dir/tool",
  "/opt/node",
  "/tmp/tool",
  "/h/u/.cargo",
  "/h/u/.npm",
  "/w/repo",
  "/w/repo/.git/hooks",
];
const FILES = [
  "/x/key.pem",
  "/h/u/.cargo/credentials.toml",
  "/opt/file-tool",
  "/data/otto/gitconfig",
  "/data/otto/view",
  "/h/u/.gitignore_global",
  "/x/secret-dir/attrs",
  "/x/store/allowed.txt",
  "/w/repo/.git/config",
  "/tmp/sock",
];
const kind = (p: string): PathKind => (DIRS.includes(p) ? "dir" : FILES.includes(p) ? "file" : "missing");

const POLICY: SandboxPolicy = {
  cwd: "/w/repo/src",
  tree: ["/w/repo", "/w/missing-tree"],
  home: "/h/u",
  toolchains: ["/opt/node", "/x/secret-dir/tool", "/tmp/tool", "/opt/file-tool"],
  caches: ["/h/u/.cargo", "/h/u/.npm"],
  allowRead: ["/x/store/allowed.txt", "/h/u/gone"],
  allowWrite: ["/tmp/held/out", "/gone-w"],
  readOnly: ["/w/repo/.git/config", "/w/repo/.git/hooks", "/w/repo/.git/info"],
  hidden: ["/x/store", "/tmp/held", "/x/key.pem", "/h/u/.ssh", "/h/u/.cargo/credentials.toml", "/tmp/sock", "/x/missing", "/x/secret-dir"],
  privateTemp: ["/tmp", "/var/tmp"],
  emptyRun: ["/run"],
  runKeep: [{ path: "/run/shm", link: "/dev/shm" }, { path: "/run/systemd/resolve" }],
  network: "none",
  ports: [],
  gitConfig: "/data/otto/gitconfig",
  gitConfigAt: "/h/u/.gitconfig",
  gitFiles: ["/h/u/.gitignore_global", "/x/secret-dir/attrs", "/h/u/missing-attrs"],
  configViews: [
    { copy: "/data/otto/view", file: "/w/repo/.git/config" },
    { copy: "/data/otto/other", file: "/elsewhere/config" },
  ],
};

describe("bwrapArgs", () => {
  it("mounts in order: system, temp, home, hidden holders, toolchains, git settings, caches, allowed paths, tree, read-only git files, hidden paths", () => {
    expect(bwrapArgs(POLICY, kind)).toEqual([
      ...["--die-with-parent", "--unshare-pid", "--unshare-net"],
      ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"],
      ...["--tmpfs", "/tmp"],
      // /run empty but for its top-level links and what name resolution needs (here not present).
      ...["--tmpfs", "/run", "--symlink", "/dev/shm", "/run/shm"],
      ...["--tmpfs", "/h/u"],
      // A hidden folder that holds an allowed path is hidden before the path is bound into it.
      ...["--tmpfs", "/x/store"],
      ...["--ro-bind", "/opt/node", "/opt/node"],
      ...["--ro-bind", "/data/otto/gitconfig", "/h/u/.gitconfig"],
      ...["--ro-bind", "/h/u/.gitignore_global", "/h/u/.gitignore_global"],
      // Package stores: a layer of the run's own (here bubblewrap without overlays: empty).
      ...["--tmpfs", "/h/u/.cargo", "--tmpfs", "/h/u/.npm"],
      ...["--ro-bind", "/x/store/allowed.txt", "/x/store/allowed.txt"],
      ...["--bind", "/tmp/held/out", "/tmp/held/out"],
      ...["--bind", "/w/repo", "/w/repo"],
      ...["--ro-bind", "/data/otto/view", "/w/repo/.git/config"],
      ...["--ro-bind", "/w/repo/.git/hooks", "/w/repo/.git/hooks"],
      // Outside temp and home; in the home but shown again by a bound cache; a folder.
      ...["--ro-bind", "/dev/null", "/x/key.pem"],
      ...["--ro-bind", "/dev/null", "/h/u/.cargo/credentials.toml"],
      ...["--tmpfs", "/x/secret-dir"],
      ...["--chdir", "/w/repo/src"],
    ]);
  });

  it("open network: no network namespace; no home, or a home or git settings file that is not there: nothing for them", () => {
    const open = { ...POLICY, network: "open", home: undefined, gitConfigAt: undefined, emptyRun: [], runKeep: [] } as SandboxPolicy;
    const args = bwrapArgs(open, kind);
    expect(args).not.toContain("--unshare-net");
    expect(args).not.toContain("/h/u/.gitconfig");
    expect(args).not.toContain("/data/otto/gitconfig");
    expect(args).not.toContain(undefined);
    expect(args.slice(0, 12)).toEqual([
      "--die-with-parent",
      "--unshare-pid",
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--tmpfs",
      "/tmp",
      "--tmpfs",
    ]);
    expect(args[12]).toBe("/x/store");
    // Without the empty home, what lies in it is hidden one by one.
    expect(args.join(" ")).toContain("--tmpfs /h/u/.ssh");
    const gone = (p: string): PathKind => (p === "/h/u" || p === "/data/otto/gitconfig" ? (p === "/h/u" ? "missing" : "dir") : kind(p));
    const without = bwrapArgs(POLICY, gone);
    expect(without).not.toContain("/h/u/.gitconfig");
    expect(without.join(" ")).not.toContain("--tmpfs /h/u ");
  });
});

describe("bwrapArgs: stores, kept runtime folders, included config files", () => {
  it("a store is a layer of its own (an overlay where bubblewrap has them) only when a folder outside the temp and hidden folders; a kept runtime folder is bound; an included config file outside the temp folders is shown as its copy", () => {
    const more = (p: string): PathKind =>
      ["/run/systemd/resolve", "/tmp/cache", "/x/store/cache"].includes(p)
        ? "dir"
        : ["/elsewhere/config", "/tmp/inc-config", "/h/u/.file-store"].includes(p)
          ? "file"
          : kind(p);
    const policy: SandboxPolicy = {
      ...POLICY,
      caches: ["/h/u/.npm", "/tmp/cache", "/x/store/cache", "/h/u/.file-store", "/h/u/gone-store"],
      configViews: [...POLICY.configViews, { copy: "/data/otto/temp-view", file: "/tmp/inc-config" }],
    };
    const args = bwrapArgs(policy, more, "overlay");
    const line = args.join(" ");
    expect(line).toContain("--symlink /dev/shm /run/shm --ro-bind /run/systemd/resolve /run/systemd/resolve --tmpfs /h/u");
    expect(line).toContain(
      "--ro-bind /h/u/.gitignore_global /h/u/.gitignore_global --overlay-src /h/u/.npm --tmp-overlay /h/u/.npm --ro-bind /x/store/allowed.txt",
    );
    for (const skipped of [
      "/tmp/cache",
      "/x/store/cache",
      "/h/u/.file-store",
      "/h/u/gone-store",
      "/tmp/inc-config",
      "/data/otto/temp-view",
    ])
      expect(args).not.toContain(skipped);
    expect(line).toContain(
      "--ro-bind /data/otto/view /w/repo/.git/config --ro-bind /w/repo/.git/hooks /w/repo/.git/hooks --ro-bind /data/otto/other /elsewhere/config",
    );
    expect(args.filter((a) => a === "--tmpfs")).toHaveLength(bwrapArgs(policy, more).filter((a) => a === "--tmpfs").length - 1);
  });
});

describe("pathKind", () => {
  it("a folder, a file (a link to one too), or missing", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "otto-pathkind-"));
    removeAfterTest(dir);
    fs.writeFileSync(path.join(dir, "f"), "x");
    fs.symlinkSync(path.join(dir, "f"), path.join(dir, "l"));
    expect([pathKind(dir), pathKind(path.join(dir, "f")), pathKind(path.join(dir, "l")), pathKind(path.join(dir, "none"))]).toEqual([
      "dir",
      "file",
      "file",
      "missing",
    ]);
  });
});

describe("a git directory of the tree inside a read-only folder (a linked worktree's own in `<common>/worktrees`)", () => {
  const policy = (): SandboxPolicy => ({
    cwd: "/w/wt",
    tree: ["/w/wt", "/w/repo/.git/worktrees/wt", "/w/repo/.git"],
    toolchains: [],
    caches: [],
    allowRead: [],
    allowWrite: [],
    readOnly: ["/w/repo/.git/worktrees/wt/commondir", "/w/repo/.git/worktrees", "/w/repo/.git/index", "/w/wt/.git"],
    hidden: [],
    privateTemp: [],
    emptyRun: [],
    runKeep: [],
    network: "open",
    ports: [],
    gitFiles: [],
    configViews: [{ copy: "/v/commondir", file: "/w/repo/.git/worktrees/wt/commondir" }],
  });

  it("bubblewrap: bound writable again after the read-only folder, then its own read-only files on top", () => {
    const kinds: Record<string, PathKind> = {
      "/w/repo/.git/index": "file",
      "/w/wt/.git": "file",
      "/w/repo/.git/worktrees/wt/commondir": "file",
    };
    const args = bwrapArgs(policy(), (p) => kinds[p] ?? "dir");
    const start = args.indexOf("--bind");
    expect(args.slice(start, -2)).toEqual([
      ...[
        "--bind",
        "/w/wt",
        "/w/wt",
        "--bind",
        "/w/repo/.git/worktrees/wt",
        "/w/repo/.git/worktrees/wt",
        "--bind",
        "/w/repo/.git",
        "/w/repo/.git",
      ],
      ...["--ro-bind", "/v/commondir", "/w/repo/.git/worktrees/wt/commondir"],
      ...["--ro-bind", "/w/repo/.git/worktrees", "/w/repo/.git/worktrees"],
      ...["--ro-bind", "/w/repo/.git/index", "/w/repo/.git/index", "--ro-bind", "/w/wt/.git", "/w/wt/.git"],
      ...["--bind", "/w/repo/.git/worktrees/wt", "/w/repo/.git/worktrees/wt"],
      ...["--ro-bind", "/v/commondir", "/w/repo/.git/worktrees/wt/commondir"],
    ]);
    // A git directory read-only itself stays so: not bound writable again after.
    const held = bwrapArgs({ ...policy(), readOnly: ["/w/repo/.git"], configViews: [] }, (p) => kinds[p] ?? "dir");
    expect(held.slice(held.indexOf("--bind"), -2)).toEqual([
      ...["--bind", "/w/wt", "/w/wt", "--bind", "/w/repo/.git/worktrees/wt", "/w/repo/.git/worktrees/wt"],
      ...["--bind", "/w/repo/.git", "/w/repo/.git", "--ro-bind", "/w/repo/.git", "/w/repo/.git"],
      ...["--bind", "/w/repo/.git/worktrees/wt", "/w/repo/.git/worktrees/wt"],
    ]);
    // A missing own git directory is not bound again.
    expect(bwrapArgs(policy(), (p) => (p === "/w/repo/.git/worktrees/wt" ? "missing" : (kinds[p] ?? "dir")))).not.toContain(
      "/w/repo/.git/worktrees/wt",
    );
  });
});

describe("bwrapArgs: a config view goes only where the file is shown anyway", () => {
  it("never in the empty home, a temp folder, /run or over a hidden path; in a folder mounted at its own place, or outside them all", () => {
    const files = [
      "/h/u/.gitconfig-real",
      "/h/u/.npmrc",
      "/x/key.pem",
      "/x/secret-dir/inc",
      "/x/store/other",
      "/x/store/allowed.txt",
      "/h/u/.npm/config",
      "/opt/node/etc/gitconfig",
      "/run/inc",
      "/run/systemd/resolve/inc",
      "/w/repo/.gitconfig",
      "/w/repo/.env",
      "/tmp/held/out/inc",
      "/etc/inc",
    ];
    const more = (p: string): PathKind => (p === "/run/systemd/resolve" ? "dir" : files.includes(p) ? "file" : kind(p));
    const policy: SandboxPolicy = {
      ...POLICY,
      hidden: [...POLICY.hidden, "/w/repo/.env"],
      configViews: files.map((file, i) => ({ copy: `/data/otto/v${i}`, file })),
    };
    const viewed = (store: "empty" | "overlay") => {
      const args = bwrapArgs(policy, more, store);
      return files.filter((_, i) => args.includes(`/data/otto/v${i}`));
    };
    // An allowed file in a hidden folder, a toolchain's file, a kept runtime folder's, the tree's, an allowed folder's, the system's.
    const shown = [
      "/x/store/allowed.txt",
      "/opt/node/etc/gitconfig",
      "/run/systemd/resolve/inc",
      "/w/repo/.gitconfig",
      "/tmp/held/out/inc",
      "/etc/inc",
    ];
    expect(viewed("empty")).toEqual(shown);
    // A package store is shown (as a layer) only where bubblewrap has overlays; otherwise it is an empty folder.
    expect(viewed("overlay")).toEqual(
      [...shown.slice(0, 2), "/h/u/.npm/config", ...shown.slice(2)].sort((a, b) => files.indexOf(a) - files.indexOf(b)),
    );
    // The copy goes at the file's own place, after the tree and before the hidden paths.
    const line = bwrapArgs(policy, more).join(" ");
    expect(line).toContain("--ro-bind /data/otto/v10 /w/repo/.gitconfig");
    expect(line.indexOf("/data/otto/v10")).toBeGreaterThan(line.indexOf("--bind /w/repo /w/repo"));
    expect(line.indexOf("/data/otto/v10")).toBeLessThan(line.indexOf("--ro-bind /dev/null /x/key.pem"));
  });
});
