import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Detected } from "../../../src/sandbox/detect.ts";
import { withOwnNetwork } from "../../../src/sandbox/net.ts";
import { withFilteredEnv } from "../../../src/sandbox/sandbox-env.ts";
import {
  assertSandbox,
  describeSandbox,
  planCommand,
  sandboxShell,
  sandboxedLine,
  shellQuote,
  type SandboxRequest,
} from "../../../src/sandbox/wrap.ts";

/*
 * wrap.ts read directly: which launcher a command gets for each mode and machine (the machine
 * given, nothing probed but where a test says so), the launcher script a session's line is
 * rewritten to, and the words of `/otto-config show` and of the refusals. sandbox.test.ts runs the
 * same plans in real bubblewrap.
 */

let home: string | undefined;
afterEach(() => {
  if (home) fs.rmSync(home, { recursive: true, force: true });
  home = undefined;
});

function request(over: Partial<SandboxRequest> = {}): SandboxRequest {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-wrap-direct-")));
  const tree = path.join(home, "tree");
  fs.mkdirSync(tree);
  return {
    mode: "auto",
    cwd: tree,
    tree: { root: tree, gitDirs: [] },
    env: { HOME: home, XDG_DATA_HOME: path.join(home, "data"), PATH: "/usr/bin:/bin" },
    detected: { kind: "bwrap", binary: "/x/bwrap" },
    pasta: "",
    storeLayer: "empty",
    ...over,
  };
}

const shell = sandboxShell();
/** The fix line of the error `run` throws ("did not throw" when it does not), or its code. */
function fixOf(run: () => void, field: "fix" | "code" = "fix"): string {
  try {
    run();
  } catch (error) {
    return (error as { fix: string; code: string })[field];
  }
  return "did not throw";
}

const none: Detected = { kind: "none", reason: "bubblewrap (bwrap) is not installed", fix: "apt install bubblewrap" };

describe("planCommand", () => {
  it("off: a plain shell, saying so; auto without a sandbox: a plain shell with the reason; required without one: refused", () => {
    expect(planCommand(request({ mode: "off" }), "npm test")).toEqual({
      sandbox: "none",
      reason: "sandbox is off in otto.jsonc",
      argv: [shell, "-c", "npm test"],
    });
    expect(planCommand(request({ detected: none }), "npm test")).toEqual({
      sandbox: "none",
      reason: "bubblewrap (bwrap) is not installed",
      argv: [shell, "-c", "npm test"],
    });
    expect(() => planCommand(request({ mode: "required", detected: none }), "npm test")).toThrow(
      'otto.jsonc sets sandbox: "required", and no sandbox can run here: bubblewrap (bwrap) is not installed.',
    );
  });

  it("bubblewrap: the filtered environment, then bwrap with its arguments and the line in the shell; pasta wraps it when the network is open", () => {
    const req = request();
    const plain = planCommand(req, "npm test");
    expect(plain.sandbox).toBe("bwrap");
    const argv = plain.argv;
    const prefix = withFilteredEnv([]);
    expect(argv.slice(0, prefix.length)).toEqual(prefix);
    expect(argv[prefix.length]).toBe("/x/bwrap");
    expect(argv.slice(-4)).toEqual(["--", shell, "-c", "npm test"]);
    const access = { network: "open" as const, allow_read: [], allow_write: [], allow_ports: [3000] };
    const netted = planCommand({ ...req, pasta: "/x/pasta", access }, "ls");
    const bwrap = planCommand({ ...req, access }, "ls").argv.slice(prefix.length, -1);
    expect(netted.argv).toEqual(withFilteredEnv(withOwnNetwork("/x/pasta", [3000], [...bwrap, "ls"])));
    // No network at all: no pasta, even when there is one.
    const closed = planCommand(
      { ...req, pasta: "/x/pasta", access: { network: "none", allow_read: [], allow_write: [], allow_ports: [] } },
      "ls",
    );
    expect(closed.argv).not.toContain("/x/pasta");
    expect(closed.argv).toContain("--unshare-net");
  });

  it("Seatbelt: sandbox-exec with its profile and the user's git settings as the global config", () => {
    const plan = planCommand(request({ detected: { kind: "sandbox-exec", binary: "/usr/bin/sandbox-exec" } }), "make");
    expect(plan.sandbox).toBe("sandbox-exec");
    const at = plan.argv.indexOf("/usr/bin/sandbox-exec");
    expect(plan.argv[at - 1]).toMatch(/^GIT_CONFIG_GLOBAL=\//);
    expect(plan.argv[at + 1]).toBe("-p");
    expect(plan.argv[at + 2]).toContain("(version 1)");
    expect(plan.argv.slice(at + 3)).toEqual([shell, "-c", "make"]);
  });
});

describe("sandboxedLine and shellQuote", () => {
  it("the line as `'<launcher>' '<line>'`; the launcher holds the fixed arguments, is named by their hash, written once, private", () => {
    const req = request();
    const plan = planCommand(req, "echo 'it''s'") as { sandbox: "bwrap"; argv: string[] };
    const line = sandboxedLine(plan, req.env);
    const dir = path.join(home!, "data", "otto", "sandbox");
    const runs = () => fs.readdirSync(dir).filter((f) => f.startsWith("run-"));
    const [file] = runs();
    expect(file).toMatch(/^run-[0-9a-f]{16}\.sh$/);
    const launcher = path.join(dir, file ?? "");
    expect(line).toBe(`'${launcher}' 'echo '\\''it'\\'''\\''s'\\'''`);
    const script = fs.readFileSync(launcher, "utf8");
    expect(script).toBe(
      `#!/bin/sh\n# Written by otto: runs one command line in otto's sandbox.\nexec ${plan.argv.slice(0, -1).map(shellQuote).join(" ")} "$1"\n`,
    );
    expect(fs.statSync(launcher).mode & 0o777).toBe(0o700);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    // The same arguments: the same launcher, not written again.
    fs.writeFileSync(launcher, "kept");
    expect(sandboxedLine({ ...plan, argv: [...plan.argv.slice(0, -1), "ls"] }, req.env)).toBe(`'${launcher}' 'ls'`);
    expect(fs.readFileSync(launcher, "utf8")).toBe("kept");
    expect(runs()).toEqual([file]);
    expect(shellQuote("")).toBe("''");
    expect(shellQuote("a'b'c")).toBe(`'a'\\''b'\\''c'`);
  });

  it("bash when the system has it, sh otherwise", () => {
    expect(sandboxShell(() => true)).toBe("/bin/bash");
    expect(sandboxShell((f) => f !== "/bin/bash")).toBe("/bin/sh");
  });
});

describe("describeSandbox and assertSandbox", () => {
  it("off, none available (auto and required, with the fix), Seatbelt", () => {
    expect(describeSandbox("off", {})).toEqual({
      mode: "off",
      active: "none",
      line: "Sandbox: off (otto.jsonc sandbox: \"off\"): sessions' commands and checks run with otto's environment and command guards alone, the watcher and CI mode included.",
    });
    expect(describeSandbox("auto", {}, none)).toEqual({
      mode: "auto",
      active: "none",
      line: 'Sandbox: none available (bubblewrap (bwrap) is not installed); sandbox: "auto", so the watcher and CI mode refuse to start, and the commands and checks of the flows you start run with otto\'s environment and command guards alone. To get one: apt install bubblewrap.',
    });
    expect(describeSandbox("required", {}, { kind: "none", reason: "r" }).line).toBe(
      'Sandbox: none available (r); sandbox: "required", so the flows that run code (execute, task run, build, the PR fix and comment flows, the review loop, the watcher, CI mode) refuse to start.',
    );
    const mac = describeSandbox("auto", {}, { kind: "sandbox-exec", binary: "/usr/bin/sandbox-exec" });
    expect(mac.active).toBe("sandbox-exec");
    expect(mac.line).toMatch(
      /^Sandbox: sandbox-exec \(\/usr\/bin\/sandbox-exec\): .*package stores writable\).*network: the internet but not this machine's 127\.0\.0\.1 \(sandbox_access\.allow_ports opens a port\)\.$/,
    );
  });

  it("bubblewrap without pasta: the host's network, said so", () => {
    const d = describeSandbox("auto", { PATH: "" }, { kind: "bwrap", binary: "/nonexistent/bwrap" });
    expect(d.active).toBe("bwrap");
    expect(d.line).toContain("Sandbox: bwrap (/nonexistent/bwrap): ");
    expect(d.line).toContain("package stores empty for each run, since this bubblewrap cannot overlay them (0.9 or later can)");
    expect(d.line).toContain("network: this machine's own network, its 127.0.0.1 included (pasta");
  });

  it("required without a sandbox refuses every flow, auto only an unattended one, naming it; off or a sandbox never", () => {
    expect(() => assertSandbox("required", {}, none)).toThrow(/sandbox: "required"/);
    expect(fixOf(() => assertSandbox("required", {}, none))).toMatch(/^To get one: apt install bubblewrap\. /);
    expect(() => assertSandbox("auto", {}, none)).not.toThrow();
    expect(() => assertSandbox("auto", {}, none, "The PR watcher")).toThrow(
      'The PR watcher runs code a PR or a model wrote with nobody watching, and no sandbox can run here: bubblewrap (bwrap) is not installed. Under sandbox: "auto" it does not start without one.',
    );
    expect(() => assertSandbox("off", {}, none, "The PR watcher")).not.toThrow();
    expect(fixOf(() => assertSandbox("required", {}, none), "code")).toBe("sandbox_required");
    expect(fixOf(() => assertSandbox("auto", {}, none, "The PR watcher"), "code")).toBe("sandbox_unattended");
    expect(() => assertSandbox("required", {}, { kind: "bwrap", binary: "/b" }, "x")).not.toThrow();
    expect(fixOf(() => assertSandbox("auto", {}, { kind: "none", reason: "r" }, "CI mode"))).toBe(
      "To get a sandbox: install bubblewrap (Linux) or run on macOS. To run it with otto's other guards alone, turn the sandbox off in your user otto.jsonc: /otto-config set sandbox off --user.",
    );
    expect(fixOf(() => assertSandbox("required", {}, { kind: "none", reason: "r" }))).toBe(
      'To get one: install bubblewrap (Linux) or run on macOS. Or set "sandbox": "auto" in your user otto.jsonc (/otto-config set sandbox auto --user) to run with otto\'s other guards alone.',
    );
  });
});
