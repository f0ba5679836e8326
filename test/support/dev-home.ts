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
