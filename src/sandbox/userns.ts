/*
 * Why bubblewrap, installed, cannot start: it needs an unprivileged user namespace, and each of
 * these settings refuses one. Read from /proc (and a container's marker files) only after the
 * probe failed; pure over `read`, so tests pass the files they mean.
 */

/** A file's text, or undefined when it is absent or unreadable. */
export type ReadFile = (file: string) => string | undefined;

/** One setting that refuses bwrap here, and what lifts it. */
export interface Refusal {
  reason: string;
  fix: string;
}

// https://discourse.ubuntu.com/t/ubuntu-24-04-lts-noble-numbat-release-notes/39890 ("Unprivileged user namespace restrictions")
const APPARMOR = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns";
// Debian's patch (kernels before Debian 11 default it to 0; some other distributions carry it too).
const USERNS_CLONE = "/proc/sys/kernel/unprivileged_userns_clone";
// user_namespaces(7): 0 refuses every new user namespace.
const MAX_USERNS = "/proc/sys/user/max_user_namespaces";
const CONTAINER_MARKERS = ["/.dockerenv", "/run/.containerenv"];

const value = (read: ReadFile, file: string): string | undefined => read(file)?.trim();

/** The settings that refuse `binary` here, most specific first; empty when none explains it. */
export function usernsRefusals(binary: string, read: ReadFile): Refusal[] {
  const found: Refusal[] = [];
  if (value(read, APPARMOR) === "1") {
    found.push({
      reason:
        "AppArmor refuses unprivileged user namespaces to programs without a profile that allows them (kernel.apparmor_restrict_unprivileged_userns = 1, Ubuntu 23.10 and later)",
      fix:
        `as root, give bwrap a profile: write /etc/apparmor.d/bwrap with \`abi <abi/4.0>, include <tunables/global> profile bwrap ${binary} flags=(unconfined) { userns, }\` ` +
        "and run apparmor_parser -r /etc/apparmor.d/bwrap; or lift the restriction for every program: sysctl kernel.apparmor_restrict_unprivileged_userns=0",
    });
  }
  if (value(read, USERNS_CLONE) === "0") {
    found.push({
      reason:
        "the kernel refuses unprivileged user namespaces (kernel.unprivileged_userns_clone = 0, Debian's and some older kernels' switch)",
      fix: "as root: sysctl kernel.unprivileged_userns_clone=1 (and the same line in /etc/sysctl.d/ to keep it)",
    });
  }
  if (value(read, MAX_USERNS) === "0") {
    found.push({
      reason: "the kernel allows no user namespaces (user.max_user_namespaces = 0)",
      fix: "as root: sysctl user.max_user_namespaces=15000 (and the same line in /etc/sysctl.d/ to keep it)",
    });
  }
  if (inContainer(read)) {
    const seccomp = /^Seccomp:\s*2\s*$/m.test(read("/proc/self/status") ?? "");
    found.push({
      reason: seccomp
        ? "otto runs in a container whose seccomp filter refuses new user namespaces (Docker's default profile does)"
        : "otto runs in a container, which may not allow new user namespaces (its runtime's AppArmor profile or dropped capabilities)",
      fix: "start the container with --security-opt seccomp=unconfined --security-opt apparmor=unconfined (or a seccomp profile that allows unshare and clone with CLONE_NEWUSER), or run otto outside the container",
    });
  }
  return found;
}

function inContainer(read: ReadFile): boolean {
  return (
    CONTAINER_MARKERS.some((file) => read(file) !== undefined) ||
    /\b(docker|kubepods|containerd|libpod)\b/.test(read("/proc/1/cgroup") ?? "")
  );
}
