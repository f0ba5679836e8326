import { within, type SandboxPolicy } from "./policy.ts";

/*
 * The same policy as a macOS Seatbelt profile for sandbox-exec(1). Seatbelt cannot mount an empty
 * folder over another, so temp folders stay shared (writable), the home is denied for reading
 * except the parts the policy shows (later rules win in SBPL), and hidden paths are denied for
 * reading and writing instead of replaced; a hidden socket is also denied for connecting.
 * Everything else follows the bubblewrap policy: writes only in the tree, its git directories,
 * temp and the stores; git's config, hooks and info read-only (a config holding a credential
 * unreadable); the credential stores unreadable.
 * Processes stay visible (no PID namespace).
 */

/** SBPL string literal. */
function lit(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

const subpaths = (paths: readonly string[]): string => paths.map((p) => `(subpath ${lit(p)})`).join(" ");

export function seatbeltProfile(policy: SandboxPolicy): string {
  const writable = subpaths([
    ...policy.tree,
    ...policy.caches,
    ...policy.allowWrite,
    ...policy.privateTemp,
    "/private/tmp",
    "/private/var/folders",
  ]);
  const lines = [
    "(version 1)",
    "(allow default)",
    `(deny file-write* (require-not (require-any (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/") ${writable})))`,
  ];
  if (policy.home) {
    const shown = [...policy.tree, ...policy.toolchains, ...policy.caches, ...policy.allowRead, ...policy.allowWrite];
    lines.push(`(deny file-read* (subpath ${lit(policy.home)}))`);
    // The home folder itself may be listed and stat'ed on the way to what is shown inside it.
    lines.push(`(allow file-read-metadata (literal ${lit(policy.home)}))`);
    lines.push(`(allow file-read* ${subpaths(shown)})`);
  }
  // The user's git settings (GIT_CONFIG_GLOBAL names the file: Seatbelt cannot show it as ~/.gitconfig).
  const gitFiles = [...(policy.gitConfig ? [policy.gitConfig] : []), ...policy.gitFiles];
  if (gitFiles.length > 0) lines.push(`(allow file-read* ${gitFiles.map((f) => `(literal ${lit(f)})`).join(" ")})`);
  if (policy.readOnly.length > 0) lines.push(`(deny file-write* ${subpaths(policy.readOnly)})`);
  // The tree's own git directory inside a read-only folder (`<common>/worktrees`): writable again, its controls not.
  const reopened = policy.tree.filter((dir) => policy.readOnly.some((r) => r !== dir && within(dir, r)));
  if (reopened.length > 0) {
    lines.push(`(allow file-write* ${subpaths(reopened)})`);
    const controls = policy.readOnly.filter((file) => reopened.some((dir) => within(file, dir)));
    if (controls.length > 0) lines.push(`(deny file-write* ${subpaths(controls)})`);
  }
  if (policy.hidden.length > 0) {
    lines.push(`(deny file-read* file-write* ${subpaths(policy.hidden)})`);
    const sockets = policy.hidden.map((p) => `(remote unix-socket (path-literal ${lit(p)}))`).join(" ");
    lines.push(`(deny network-outbound ${sockets})`);
  }
  // A git config file holding a credential (git-config-view.ts): bubblewrap shows a copy without
  // it, Seatbelt cannot put one in its place, so the file is unreadable; git in that tree then
  // stops and names the file, which the user fixes by moving the credential to a helper.
  if (policy.configViews.length > 0) lines.push(`(deny file-read* ${policy.configViews.map((v) => `(literal ${lit(v.file)})`).join(" ")})`);
  if (policy.network === "none") lines.push("(deny network-outbound (remote ip))", "(deny network-inbound (local ip))");
  else {
    // The internet, not the host: its loopback is denied but for the ports allow_ports lists.
    lines.push('(deny network-outbound (remote ip "localhost:*"))');
    for (const port of policy.ports) lines.push(`(allow network-outbound (remote ip "localhost:${port}"))`);
  }
  return `${lines.join("\n")}\n`;
}
