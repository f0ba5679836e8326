import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/*
 * A developer's home, as otto meets it on a real machine: a ~/.gitconfig with an identity, a
 * credential helper, a global ignore file and a default branch; stored git credentials, an
 * ~/.npmrc with a registry token and an ~/.ssh folder. The secrets are recognisable values a test
 * can look for in every request, state file, commit and comment: none may ever leave the home.
 *
 * Test roots live outside the system's temp folders: the sandbox replaces /tmp with an empty one,
 * so a home or remote there would be out of sight inside for that reason alone, and a test of the
 * sandbox's own hiding would pass with the hiding switched off.
 */

/** Where tests make their homes, projects and remotes: outside /tmp (OTTO_TEST_ROOT overrides). */
export function testRoot(): string {
  const root = process.env.OTTO_TEST_ROOT || path.join(os.homedir(), ".cache", "otto-test-roots");
  fs.mkdirSync(root, { recursive: true });
  return root;
}

export const DEVELOPER = { name: "Dana Developer", email: "dana@example.invalid" } as const;

/** The secrets of a developer's home; none may appear in a request, state file, commit or comment. */
export const DEV_SECRETS = {
  npmToken: "npm_DevHomeRegistryToken0123456789abcdefXYZ",
  gitCredential: "ghp_DevHomeStoredCredential0123456789abcdef",
  sshKey: "DEVHOME-PRIVATE-KEY-0123456789abcdef",
} as const;

/** Patterns a developer ignores everywhere (core.excludesFile), and nothing in a project's own .gitignore. */
export const GLOBAL_IGNORES = [".idea/", ".DS_Store", "*.swp"] as const;

export interface DeveloperHomeOptions {
  /** commit.gpgSign with a signing program that records each call (`signLog`). */
  signing?: boolean;
  /** Extra ~/.gitconfig text (an includeIf section, say). */
  gitconfig?: string;
  /**
   * Every global setting of a developer's that would run a program or change otto's git if it
   * reached it (tangledSettings): each program it names appends a line to this file and fails.
   */
  tangled?: string;
}

/** Writes a developer's setup into `home` (which exists); returns the file the signing program logs to. */
export function writeDeveloperHome(home: string, options: DeveloperHomeOptions = {}): { signLog: string } {
  const signLog = path.join(home, ".sign-log");
  const signer = path.join(home, ".local", "bin", "fake-gpg");
  const lines = [
    "[user]",
    `\tname = ${DEVELOPER.name}`,
    `\temail = ${DEVELOPER.email}`,
    "[credential]",
    "\thelper = store",
    "[core]",
    "\texcludesFile = ~/.gitignore_global",
    "[init]",
    "\tdefaultBranch = main",
    "[pull]",
    "\trebase = true",
    ...(options.signing ? ["[commit]", "\tgpgSign = true", "[gpg]", `\tprogram = ${signer}`] : []),
  ];
  fs.writeFileSync(path.join(home, ".gitconfig"), `${lines.join("\n")}\n${options.gitconfig ?? ""}`);
  fs.writeFileSync(path.join(home, ".gitignore_global"), `${GLOBAL_IGNORES.join("\n")}\n`);
  fs.writeFileSync(path.join(home, ".git-credentials"), `https://dana:${DEV_SECRETS.gitCredential}@github.com\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(home, ".npmrc"), `//registry.npmjs.org/:_authToken=${DEV_SECRETS.npmToken}\n`, { mode: 0o600 });
  fs.mkdirSync(path.join(home, ".ssh"), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(home, ".ssh", "config"), "Host *\n  IdentityFile ~/.ssh/id_ed25519\n");
  fs.writeFileSync(
    path.join(home, ".ssh", "id_ed25519"),
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${DEV_SECRETS.sshKey}\n-----END OPENSSH PRIVATE KEY-----\n`,
    {
      mode: 0o600,
    },
  );
  if (options.tangled) tangledSettings(home, options.tangled);
  if (options.signing) {
    fs.mkdirSync(path.dirname(signer), { recursive: true });
    // A signer that records the call and fails: a commit that tried to sign would fail, and say so.
    fs.writeFileSync(signer, `#!/bin/sh\necho "called $*" >> '${signLog}'\nexit 1\n`, { mode: 0o755 });
  }
  return { signLog };
}

/** A new developer's home under testRoot(), with its XDG folders inside; `cleanup` removes it. */
export function developerHome(options: DeveloperHomeOptions = {}): {
  root: string;
  home: string;
  env: { HOME: string; XDG_CONFIG_HOME: string; XDG_DATA_HOME: string };
  signLog: string;
  cleanup(): void;
} {
  const root = fs.mkdtempSync(path.join(testRoot(), "home-"));
  const home = path.join(root, "home");
  fs.mkdirSync(home);
  const { signLog } = writeDeveloperHome(home, options);
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), XDG_DATA_HOME: path.join(home, ".local", "share") };
  return { root, home, env, signLog, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/**
 * A developer's global settings that otto's own git must not follow: a hooks folder whose hooks
 * fail, a pager and an external diff, SSH commit signing, a commit template, autostash,
 * updateRefs, push.default nothing, autocrlf, fetch.prune, an alias, init.defaultBranch trunk, and
 * a global ignore of `*.log` and `dist/`. Each program appends "<what> <cwd> <args>" to `log` and
 * exits 1. The receiving side of a push to a local bare repository is that repository's (its
 * hooks are a server's), so no reference-transaction hook is planted.
 */
export function tangledSettings(home: string, log: string): void {
  const bin = path.join(home, ".local", "bin");
  const hooks = path.join(home, ".githooks");
  fs.mkdirSync(bin, { recursive: true });
  fs.mkdirSync(hooks, { recursive: true });
  const program = (what: string, file: string) =>
    fs.writeFileSync(file, `#!/bin/sh\necho "${what} $PWD $*" >> '${log}'\nexit 1\n`, { mode: 0o755 });
  for (const hook of [
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-rewrite",
    "pre-push",
    "post-checkout",
  ])
    program(`hook:${hook}`, path.join(hooks, hook));
  program("pager", path.join(bin, "tangled-pager"));
  program("external-diff", path.join(bin, "tangled-diff"));
  program("ssh-signer", path.join(bin, "tangled-ssh-keygen"));
  fs.writeFileSync(path.join(home, ".gitmessage"), "TEMPLATE SUBJECT\n");
  fs.appendFileSync(path.join(home, ".gitignore_global"), "*.log\ndist/\n");
  const lines = [
    "[user]",
    "\tuseConfigOnly = true",
    "\tsigningKey = ~/.ssh/id_ed25519.pub",
    "[core]",
    `\thooksPath = ${hooks}`,
    `\tpager = ${bin}/tangled-pager`,
    "\tautocrlf = true",
    "[commit]",
    "\tgpgSign = true",
    "\ttemplate = ~/.gitmessage",
    "[gpg]",
    "\tformat = ssh",
    '[gpg "ssh"]',
    `\tprogram = ${bin}/tangled-ssh-keygen`,
    "[diff]",
    `\texternal = ${bin}/tangled-diff`,
    "[push]",
    "\tdefault = nothing",
    "\tautoSetupRemote = true",
    "[fetch]",
    "\tprune = true",
    "[rebase]",
    "\tautoStash = true",
    "\tupdateRefs = true",
    "[merge]",
    "\tautoStash = true",
    "[alias]",
    "\tst = status -sb",
    "[init]",
    "\tdefaultBranch = trunk",
  ];
  fs.appendFileSync(path.join(home, ".gitconfig"), `${lines.join("\n")}\n`);
}
