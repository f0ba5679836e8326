import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { assertSandbox, describeSandbox, detectSandbox, type DetectHost, type Detected } from "../../../src/sandbox/index.ts";

/*
 * What detection says when there is no sandbox: not installed, or installed and refused by a
 * kernel or container setting (read from the files a test hands it), with the fix for each; and
 * which flows refuse under each mode.
 */

const bin = fs.mkdtempSync(path.join(os.tmpdir(), "otto-detect-"));
afterAll(() => fs.rmSync(bin, { recursive: true, force: true }));
// An executable named bwrap: found on PATH; the test's probe decides whether it "starts".
const fakeBwrap = path.join(bin, "bwrap");
fs.writeFileSync(fakeBwrap, "#!/bin/sh\nexit 1\n", { mode: 0o755 });
const env = { PATH: bin };

/** A machine whose bwrap fails with `stderr` and whose /proc holds `files`. */
function host(files: Record<string, string>, stderr = "bwrap: setting up uid map: Permission denied"): DetectHost & { probes: number } {
  const h = {
    probes: 0,
    read: (file: string) => files[file],
    probe: () => {
      h.probes += 1;
      return stderr;
    },
  };
  return h;
}

const none = (detected: Detected) => {
  if (detected.kind !== "none") throw new Error(`expected no sandbox, got ${detected.kind}`);
  return detected;
};

describe("detectSandbox on Linux", () => {
  it("says bubblewrap is not installed, and how to install it, when PATH has no bwrap", () => {
    const detected = none(detectSandbox({ PATH: path.join(bin, "missing") }, "linux", host({})));
    expect(detected.reason).toBe("bubblewrap (bwrap) is not installed");
    expect(detected.fix).toMatch(/apt-get install bubblewrap/);
  });

  it("names Ubuntu's AppArmor restriction with a bwrap profile and the sysctl as fixes", () => {
    const detected = none(detectSandbox(env, "linux", host({ "/proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1\n" })));
    expect(detected.reason).toMatch(
      new RegExp(`^${fakeBwrap} is installed but refused: AppArmor .*apparmor_restrict_unprivileged_userns = 1`),
    );
    expect(detected.reason).toContain("(bwrap: setting up uid map: Permission denied)");
    expect(detected.fix).toContain("/etc/apparmor.d/bwrap");
    expect(detected.fix).toContain(`profile bwrap ${fakeBwrap} flags=(unconfined) { userns, }`);
    expect(detected.fix).toContain("sysctl kernel.apparmor_restrict_unprivileged_userns=0");
  });

  it("names Debian's unprivileged_userns_clone and a zero max_user_namespaces", () => {
    const debian = none(detectSandbox(env, "linux", host({ "/proc/sys/kernel/unprivileged_userns_clone": "0\n" })));
    expect(debian.reason).toContain("kernel.unprivileged_userns_clone = 0");
    expect(debian.fix).toContain("sysctl kernel.unprivileged_userns_clone=1");
    const zero = none(detectSandbox(env, "linux", host({ "/proc/sys/user/max_user_namespaces": "0\n" })));
    expect(zero.reason).toContain("user.max_user_namespaces = 0");
    expect(zero.fix).toContain("sysctl user.max_user_namespaces=");
  });

  it("names a container's seccomp filter (Docker's default profile)", () => {
    const docker = none(
      detectSandbox(env, "linux", host({ "/.dockerenv": "", "/proc/self/status": "Name:\tnode\nSeccomp:\t2\nSeccomp_filters:\t1\n" })),
    );
    expect(docker.reason).toContain("container whose seccomp filter refuses new user namespaces (Docker's default profile does)");
    expect(docker.fix).toContain("--security-opt seccomp=unconfined");
    const podman = none(detectSandbox(env, "linux", host({ "/run/.containerenv": "" })));
    expect(podman.reason).toContain("runs in a container, which may not allow new user namespaces");
  });

  it("names every setting that applies, and only those: settings that allow namespaces are not blamed", () => {
    const both = none(
      detectSandbox(
        env,
        "linux",
        host({
          "/proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1",
          "/proc/sys/user/max_user_namespaces": "0",
          "/proc/sys/kernel/unprivileged_userns_clone": "1",
        }),
      ),
    );
    expect(both.reason).toMatch(/AppArmor.*; and the kernel allows no user namespaces/);
    expect(both.reason).not.toContain("unprivileged_userns_clone");
    expect(both.fix).toMatch(/apparmor.*; and as root: sysctl user\.max_user_namespaces/);
  });

  it("says installed but cannot start, with bwrap's own words, when no setting explains it", () => {
    const detected = none(
      detectSandbox(
        env,
        "linux",
        host(
          { "/proc/sys/kernel/apparmor_restrict_unprivileged_userns": "0", "/proc/sys/user/max_user_namespaces": "63000" },
          "bwrap: odd",
        ),
      ),
    );
    expect(detected.reason).toBe(`${fakeBwrap} is installed but cannot start a sandbox here (bwrap: odd)`);
    expect(detected.fix).toContain(`run ${fakeBwrap} --ro-bind / / --dev /dev --proc /proc true to see why`);
  });

  it("probes a binary once per process: the second detection asks the machine nothing new", () => {
    const machine = host({ "/proc/sys/user/max_user_namespaces": "0" });
    detectSandbox(env, "linux", machine);
    const again = none(detectSandbox(env, "linux", machine));
    expect(machine.probes).toBe(1);
    expect(again.reason).toContain("user.max_user_namespaces = 0");
    expect(detectSandbox(env, "linux", { read: () => undefined, probe: () => undefined })).toEqual({ kind: "bwrap", binary: fakeBwrap });
  });

  // .ci/run's non-root step sets this: there, a machine whose bubblewrap is refused fails loudly
  // (with detection's reason) instead of skipping the sandbox's tests.
  it.runIf(process.env.OTTO_TEST_SANDBOX === "required")("this machine runs bubblewrap for this user", () => {
    const detected = detectSandbox();
    expect(detected.kind === "none" ? `${detected.reason}; fix: ${detected.fix ?? ""}` : detected.kind).toBe("bwrap");
  });
});

describe("which flows refuse without a sandbox", () => {
  const missing: Detected = { kind: "none", reason: "bubblewrap (bwrap) is not installed", fix: "install it: apt-get install bubblewrap" };
  const bwrap: Detected = { kind: "bwrap", binary: "/usr/bin/bwrap" };
  const code = (run: () => void): string | undefined => {
    try {
      run();
      return undefined;
    } catch (error) {
      return (error as { code?: string }).code;
    }
  };

  it("required refuses every flow; auto only the unattended ones; off none; a sandbox satisfies all", () => {
    expect(code(() => assertSandbox("required", {}, missing))).toBe("sandbox_required");
    expect(code(() => assertSandbox("required", {}, missing, "The PR watcher"))).toBe("sandbox_required");
    expect(code(() => assertSandbox("auto", {}, missing))).toBeUndefined();
    expect(code(() => assertSandbox("auto", {}, missing, "The PR watcher"))).toBe("sandbox_unattended");
    expect(code(() => assertSandbox("off", {}, missing, "The PR watcher"))).toBeUndefined();
    for (const mode of ["auto", "required", "off"] as const)
      expect(code(() => assertSandbox(mode, {}, bwrap, "The PR watcher"))).toBeUndefined();
  });

  it("the unattended refusal names the flow, the reason, how to get a sandbox and how to turn it off in the user's file", () => {
    let error: { message: string; fix?: string } | undefined;
    try {
      assertSandbox("auto", {}, missing, "The PR watcher");
    } catch (caught) {
      error = caught as typeof error;
    }
    expect(error?.message).toBe(
      'The PR watcher runs code a PR or a model wrote with nobody watching, and no sandbox can run here: bubblewrap (bwrap) is not installed. Under sandbox: "auto" it does not start without one.',
    );
    expect(error?.fix).toBe(
      "To get a sandbox: install it: apt-get install bubblewrap. To run it with otto's other guards alone, turn the sandbox off in your user otto.jsonc: /otto-config set sandbox off --user.",
    );
  });

  it("/otto-config show says the watcher and CI refuse under auto, and what would give a sandbox", () => {
    const line = describeSandbox("auto", {}, missing).line;
    expect(line).toContain("the watcher and CI mode refuse to start");
    expect(line).toContain("To get one: install it: apt-get install bubblewrap.");
  });
});
