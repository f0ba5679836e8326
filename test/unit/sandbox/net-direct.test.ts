import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { onPath } from "../../../src/sandbox/detect.ts";
import { findPasta, withOwnNetwork } from "../../../src/sandbox/net.ts";

/*
 * net.ts read directly and fast: the launcher's arguments written out whole, and the launcher run
 * with real bubblewrap and a pasta that logs how it was started and then runs the real one (a
 * command a fraction of a second each; network.test.ts probes real host services, tens of seconds).
 */

const PATH = process.env.PATH ?? "";
const realPasta = onPath("pasta", PATH);
const bwrap = onPath("bwrap", PATH);
// Whether pasta can join a sandbox here is findPasta's own probe; under `npm run mutate`
// (OTTO_MUTATE_TESTS set, on a machine where it can) a mutant that breaks the probe must fail these
// tests, not turn them off.
const runs =
  realPasta !== undefined && bwrap !== undefined && (process.env.OTTO_MUTATE_TESTS !== undefined || findPasta(PATH) !== undefined);

const temps: string[] = [];
afterEach(() => {
  for (const temp of temps.splice(0)) fs.rmSync(temp, { recursive: true, force: true });
});
function tmp(): string {
  const temp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "otto-net-direct-")));
  temps.push(temp);
  return temp;
}

/** A pasta that logs its pid and arguments, then does `then` (by default: runs the real pasta). */
function loggingPasta(dir: string, then = `exec ${realPasta ?? "pasta"} "$@"`): { file: string; log: string } {
  const file = path.join(dir, "bin", "pasta");
  const log = path.join(dir, "pasta.log");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\necho "$$ $*" >> '${log}'\n${then}\n`, { mode: 0o755 });
  return { file, log };
}

/**
 * A fresh folder for PATH holding a link to the real pasta (a new binary for findPasta's cache) and
 * bubblewrap: the real one, or a script that runs it (as `$real`) in the way `wrapper` says.
 */
function probeDir(wrapper?: string): string {
  const dir = path.join(tmp(), "bin");
  fs.mkdirSync(dir);
  fs.symlinkSync(realPasta ?? "pasta", path.join(dir, "pasta"));
  if (wrapper === undefined) fs.symlinkSync(bwrap ?? "bwrap", path.join(dir, "bwrap"));
  else fs.writeFileSync(path.join(dir, "bwrap"), `#!/bin/sh\nreal='${bwrap ?? "bwrap"}'\n${wrapper}\n`, { mode: 0o755 });
  return dir;
}

const BWRAP_ARGS = ["--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];

function launch(pasta: string, ports: number[], script: string, tmpdir: string, ...args: string[]) {
  return launchWith(bwrap ?? "bwrap", 60_000, pasta, ports, script, tmpdir, ...args);
}

function launchWith(bwrapBin: string, timeout: number, pasta: string, ports: number[], script: string, tmpdir: string, ...args: string[]) {
  const argv = withOwnNetwork(pasta, ports, [bwrapBin, ...BWRAP_ARGS, "--", "/bin/sh", "-c", script, "inner", ...args]);
  return spawnSync(argv[0] ?? "/bin/sh", argv.slice(1), {
    encoding: "utf8",
    timeout,
    // The caller's variables named like the script's own (`ok`, `pid`) do not leak into it.
    env: { ...process.env, TMPDIR: tmpdir, ok: "1", pid: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Whether `pid` ended (absent, or a zombie not yet reaped by whoever inherited it), once it has had ten seconds to act on its signal. */
async function ended(pid: number): Promise<boolean> {
  const state = (): string => {
    try {
      return /^State:\s+(\S)/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "?";
    } catch {
      return "gone";
    }
  };
  for (let i = 0; i < 200 && !["gone", "Z"].includes(state()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return ["gone", "Z"].includes(state());
}

describe("withOwnNetwork's arguments", () => {
  it("bubblewrap's own arguments, then its own network, the pid on fd 3, the FIFO bound in /dev, and the command behind a wait", () => {
    const argv = withOwnNetwork("/p/pasta", [8080, 9090], ["/b/bwrap", "--a", "x", "--", "cmd", "arg one"]);
    expect(argv.slice(0, 2)).toEqual(["/bin/sh", "-c"]);
    expect(argv.slice(3)).toEqual([
      "otto-net",
      "/p/pasta",
      "8080,9090",
      "/b/bwrap",
      "--unshare-net",
      "--info-fd",
      "3",
      "--a",
      "x",
      "--ro-bind",
      "@otto-net-ready@",
      "/dev/.otto-net",
      "--",
      "/bin/sh",
      "-c",
      'read -r _ < /dev/.otto-net; exec "$@"',
      "otto-net-wait",
      "cmd",
      "arg one",
    ]);
  });

  it("without a `--`, every argument is bubblewrap's and the wait runs nothing more; no bwrap given, `bwrap`; no port, an empty list", () => {
    const argv = withOwnNetwork("p", [], ["/b/bwrap", "--a"]);
    expect(argv.slice(3)).toEqual([
      "otto-net",
      "p",
      "",
      "/b/bwrap",
      "--unshare-net",
      "--info-fd",
      "3",
      "--a",
      "--ro-bind",
      "@otto-net-ready@",
      "/dev/.otto-net",
      "--",
      "/bin/sh",
      "-c",
      'read -r _ < /dev/.otto-net; exec "$@"',
      "otto-net-wait",
    ]);
    expect(withOwnNetwork("p", [1], [])[6]).toBe("bwrap");
    // A `--` right after the binary: no argument of bubblewrap's, the whole command behind the wait.
    expect(withOwnNetwork("p", [], ["/b/bwrap", "--", "cmd"]).slice(10)).toEqual([
      "--ro-bind",
      "@otto-net-ready@",
      "/dev/.otto-net",
      "--",
      "/bin/sh",
      "-c",
      'read -r _ < /dev/.otto-net; exec "$@"',
      "otto-net-wait",
      "cmd",
    ]);
  });
});

describe("findPasta", () => {
  it("none without pasta or without bubblewrap on PATH", () => {
    const dir = tmp();
    expect(findPasta("")).toBeUndefined();
    expect(findPasta(dir)).toBeUndefined();
    if (realPasta) {
      fs.symlinkSync(realPasta, path.join(dir, "pasta"));
      expect(findPasta(dir)).toBeUndefined();
    }
  });

  it.skipIf(!runs)("the pasta on PATH when it can join a sandbox here, probed once per binary", () => {
    expect(findPasta(PATH)).toBe(realPasta);
    // Probed afresh (the cache is per binary: a new link is a new one): joined, it is used.
    const fresh = probeDir();
    expect(findPasta(fresh)).toBe(path.join(fresh, "pasta"));
    // Asked again, the probe (a bubblewrap that logs each start) does not run again.
    const log = path.join(tmp(), "probes.log");
    const logged = probeDir(`echo probe >> '${log}'; "$real" "$@"`);
    expect(findPasta(logged)).toBe(path.join(logged, "pasta"));
    expect(findPasta(logged)).toBe(path.join(logged, "pasta"));
    expect(fs.readFileSync(log, "utf8")).toBe("probe\n");
  });

  // A bubblewrap that runs the real one (pasta joins, the probe's command runs) and then spoils its
  // outcome one way: each is a namespace pasta did not serve, and the pasta is not used.
  it.skipIf(!runs)("one whose probe fails, says the network could not be set up, or gets no default route is not used", () => {
    const failing = probeDir('"$real" "$@"; exit 3');
    expect(findPasta(failing)).toBeUndefined();
    const warned = probeDir('"$real" "$@"; rc=$?; echo "otto: the sandbox\'s network could not be set up" >&2; exit $rc');
    expect(findPasta(warned)).toBeUndefined();
    const noRoute = probeDir('"$real" "$@" | sed "s/^\\([^\t]*\t\\)00000000\t/\\10000000A\t/"');
    // Its link route is left (gateway and mask 00000000): no default route still.
    expect(findPasta(noRoute)).toBeUndefined();
    // The same wrapper passing the output on as it is: used (the three above fail for their own reason).
    const passing = probeDir('"$real" "$@"');
    expect(findPasta(passing)).toBe(path.join(passing, "pasta"));
  });
});

describe.skipIf(!runs)("the launcher (real bubblewrap, pasta logged)", () => {
  it("the command starts once pasta gave its namespace a default route, gets its arguments and its exit status; pasta ends with it and the scratch folder goes", async () => {
    const dir = tmp();
    const scratch = path.join(dir, "tmp");
    fs.mkdirSync(scratch);
    const pasta = loggingPasta(dir);
    const result = launch(pasta.file, [4321, 4322], 'cat /proc/net/route; printf "[%s]" "$@"; exit 7', scratch, "a b", "c");
    expect(result.status).toBe(7);
    expect(result.stdout).toMatch(/\t00000000\t/);
    expect(result.stdout).toContain("[a b][c]");
    expect(result.stderr).not.toContain("could not be set up");
    const lines = fs.readFileSync(pasta.log, "utf8").trim().split("\n");
    // A start before the namespace opened to pasta is tried again: the last one joined.
    const [, ...args] = (lines.at(-1) ?? "").split(" ");
    const own: unknown[] =
      process.getuid?.() === 0 ? ["--runas", "0"] : ["--userns", expect.stringMatching(/^\/proc\/\d+\/ns\/user$/) as unknown];
    expect(args).toEqual([
      "--config-net",
      "--quiet",
      "--foreground",
      "--no-map-gw",
      "-U",
      "none",
      "-u",
      "none",
      "-t",
      "none",
      "-T",
      "4321,4322",
      ...own,
      "--netns",
      expect.stringMatching(/^\/proc\/\d+\/ns\/net$/) as unknown,
    ]);
    for (const line of lines) expect(await ended(Number(line.split(" ")[0]))).toBe(true);
    expect(fs.readdirSync(scratch)).toEqual([]);
  });

  it("no allowed port: -T none", () => {
    const dir = tmp();
    const pasta = loggingPasta(dir);
    const result = launch(pasta.file, [], "exit 0", dir);
    expect(result.status).toBe(0);
    expect(fs.readFileSync(pasta.log, "utf8")).toContain(" -T none ");
  });

  it("a bubblewrap that ends at once, never reading the go-ahead: the launcher ends with its status, not waiting for a reader", () => {
    const dir = tmp();
    const pasta = loggingPasta(dir, "exit 1");
    // Its child's pid is this process's (a namespace with the host's routes, or none: either way the helper writes its line).
    const early = path.join(dir, "bwrap");
    fs.writeFileSync(early, `#!/bin/sh\necho '{"child-pid": ${process.pid}}' >&3\nexit 9\n`, { mode: 0o755 });
    const result = launchWith(early, 20_000, pasta.file, [], "echo ran", dir);
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(9);
    expect(result.stdout).not.toContain("ran");
  });

  it("a pasta that cannot start is tried again, fifty times, then the command runs without a network and says so", () => {
    const dir = tmp();
    const pasta = loggingPasta(dir, "exit 1");
    const result = launch(pasta.file, [], "cat /proc/net/route; echo ran", dir);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("ran");
    expect(result.stdout).not.toMatch(/\t00000000\t/);
    expect(result.stderr).toContain("otto: the sandbox's network could not be set up (pasta failed); this command runs without a network.");
    expect(fs.readFileSync(pasta.log, "utf8").trim().split("\n")).toHaveLength(50);
  });
});
