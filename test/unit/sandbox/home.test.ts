import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { detectSandbox, planCommand, type SandboxAccess } from "../../../src/sandbox/index.ts";

/*
 * What a sandboxed command sees of the user's home, sessions, environment and tree (real
 * bubblewrap). Every probe runs twice: outside the sandbox, where it must succeed (so the probe
 * can fail), and inside, where it must not. The sandbox replaces /tmp with an empty folder, so the
 * fake home lives outside /tmp: under /tmp it would be hidden whatever the policy said.
 */

const run = promisify(execFile);
const available = detectSandbox().kind !== "none";
const writable = (dir: string): boolean => {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

interface Probe {
  ok: boolean;
  out: string;
}

describe.skipIf(!available)("the sandbox's home, sockets, environment and tree (real bubblewrap)", () => {
  let home: string;
  let repo: string;
  let env: Record<string, string>;
  const closers: Array<() => void> = [];

  beforeEach(() => {
    const cache = path.join(os.homedir(), ".cache");
    fs.mkdirSync(cache, { recursive: true });
    home = fs.mkdtempSync(path.join(cache, "otto-test-home-"));
    repo = fs.mkdtempSync(path.join(cache, "otto-test-tree-"));
    // Only what the probes need: the tests' own HOME, caches and toolchain variables stay out.
    env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      LANG: "C.UTF-8",
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, ".config"),
      XDG_DATA_HOME: path.join(home, ".local", "share"),
      XDG_RUNTIME_DIR: path.join(home, "run"),
      GIT_CONFIG_NOSYSTEM: "1",
    };
    fs.mkdirSync(path.join(home, "run"), { recursive: true });
    execFileSync("git", ["init", "-q", repo], { env });
  });

  afterEach(() => {
    for (const close of closers.splice(0)) close();
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(repo, { recursive: true, force: true });
  });

  const write = (file: string, text = "") => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  };

  async function exec(argv: string[]): Promise<Probe> {
    try {
      const { stdout, stderr } = await run(argv[0] ?? "/bin/sh", argv.slice(1), { cwd: repo, env, timeout: 20_000 });
      return { ok: true, out: stdout + stderr };
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string };
      return { ok: false, out: `${e.stdout ?? ""}${e.stderr ?? ""}` };
    }
  }

  const outside = (command: string) => exec(["/bin/sh", "-c", command]);
  const inside = (command: string, access?: SandboxAccess) =>
    exec(
      planCommand(
        { mode: "required", cwd: repo, tree: { root: repo, gitDirs: [path.join(repo, ".git")] }, env, ...(access ? { access } : {}) },
        command,
      ).argv,
    );

  it("shows an empty home: a file in it is readable outside, not inside", async () => {
    write(path.join(home, "notes.txt"), "home-secret\n");
    write(path.join(home, ".gitconfig"), "[alias]\n\tx = status\n");
    expect(await outside("cat ~/notes.txt")).toMatchObject({ ok: true, out: "home-secret\n" });
    const probe = await inside("cat ~/notes.txt; cat ~/.gitconfig; ls -A ~");
    expect(probe.out).not.toContain("home-secret");
    expect(probe.out).not.toContain("alias");
    expect(probe.out).toContain("No such file");
  });

  it("a tree under the home is bound back on top, writable, while the rest of the home stays hidden", async () => {
    const app = path.join(home, "code", "app");
    execFileSync("git", ["init", "-q", app], { env });
    write(path.join(home, "notes.txt"), "home-secret\n");
    const argv = planCommand(
      { mode: "required", cwd: app, tree: { root: app, gitDirs: [path.join(app, ".git")] }, env },
      "echo built > out.txt && cat ../../notes.txt",
    ).argv;
    const probe = await exec(argv);
    expect(probe.out).not.toContain("home-secret");
    expect(fs.readFileSync(path.join(app, "out.txt"), "utf8")).toBe("built\n");
    expect((await outside(`cat ${path.join(home, "notes.txt")}`)).out).toBe("home-secret\n");
  });

  it("a run writes the package stores in a layer of its own: the user's store is unchanged after it, and installs still work", async () => {
    // Files a later build outside runs with the user's rights: a Gradle wrapper distribution, a
    // crate's build script, a Go module, an npm cache entry, a pip cache entry.
    const planted: Record<string, string> = {
      ".gradle/wrapper/dists/gradle-8.5-bin/x1/gradle-8.5/bin/gradle": "#!/bin/sh\necho real gradle\n",
      ".cargo/registry/src/index.crates.io-1/serde-1.0.0/build.rs": "fn main() {}\n",
      "go/pkg/mod/example.com/m@v1.0.0/m.go": "package m\n",
      ".npm/_cacache/index-v5/aa/bb/entry": "npm cache entry\n",
      ".cache/pip/http/a/b/c": "pip cache entry\n",
    };
    for (const [rel, text] of Object.entries(planted)) write(path.join(home, rel), text);
    const listing = (dir: string): string[] =>
      fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).sort((a, b) => a.localeCompare(b));
    const before = Object.fromEntries(
      [".gradle", ".cargo", "go", ".npm", ".cache/pip"].map((d) => [d, listing(path.join(home, d))] as const),
    );
    // A package to install, as a tarball in the tree: npm puts it in its cache on the way.
    const pkg = path.join(repo, "pkg", "package");
    write(path.join(pkg, "package.json"), JSON.stringify({ name: "seams-probe-pkg", version: "1.0.0", main: "index.js" }));
    write(path.join(pkg, "index.js"), "module.exports = 'installed';\n");
    execFileSync("tar", ["czf", "probe.tgz", "package"], { cwd: path.dirname(pkg) });

    const poison = Object.keys(planted)
      .map(
        (rel) => `mkdir -p "$(dirname ~/${rel})" && echo poisoned > ~/${rel} && cat ~/${rel} && touch "$(dirname ~/${rel})/planted-inside"`,
      )
      .join(" && ");
    const install =
      "npm install --no-audit --no-fund --no-save --no-update-notifier ./pkg/probe.tgz >/dev/null 2>&1 && node -p \"require('seams-probe-pkg')\"";
    const probe = await inside(`${poison} && ${install}`);
    // The hostile step ran: inside, each write landed and read back, and the install worked.
    expect(probe.ok, probe.out).toBe(true);
    expect(probe.out.match(/^poisoned$/gm)).toHaveLength(Object.keys(planted).length);
    expect(probe.out).toMatch(/^installed$/m);
    expect(fs.existsSync(path.join(repo, "node_modules", "seams-probe-pkg", "index.js"))).toBe(true);
    // Outside, after the run: every store as it was.
    for (const [rel, text] of Object.entries(planted)) expect(fs.readFileSync(path.join(home, rel), "utf8"), rel).toBe(text);
    for (const [dir, names] of Object.entries(before)) expect(listing(path.join(home, dir)), dir).toEqual(names);
  });

  it("OpenCode's plugin cache and Gradle's init scripts are not writable; Maven's settings and Cargo's credentials not readable", async () => {
    const plugin = path.join(home, ".cache", "opencode", "node_modules", "opencode-otto", "index.js");
    const init = path.join(home, ".gradle", "init.d", "planted.gradle");
    write(plugin, "export default {};\n");
    fs.mkdirSync(path.dirname(init), { recursive: true });
    fs.mkdirSync(path.join(home, ".gradle", "caches"), { recursive: true });
    write(path.join(home, ".gradle", "gradle.properties"), "token=gradle-secret\n");
    write(path.join(home, ".m2", "settings.xml"), "<password>m2-secret</password>\n");
    fs.mkdirSync(path.join(home, ".m2", "repository"), { recursive: true });
    write(path.join(home, ".cargo", "credentials.toml"), "token = 'cargo-secret'\n");
    fs.mkdirSync(path.join(home, ".cargo", "registry"), { recursive: true });

    const read = "cat ~/.m2/settings.xml ~/.gradle/gradle.properties ~/.cargo/credentials.toml";
    const plant = `echo 'planted' > ${plugin} && echo planted > ${init}`;
    const control = await outside(read);
    expect(control.out).toMatch(/m2-secret[\s\S]*gradle-secret[\s\S]*cargo-secret/);

    const probe = await inside(`${read}; ${plant}`);
    expect(probe.out).not.toMatch(/m2-secret|gradle-secret|cargo-secret/);
    expect(fs.readFileSync(plugin, "utf8")).toBe("export default {};\n");
    expect(fs.existsSync(init)).toBe(false);
    // The control: the same writes outside land.
    expect(await outside(plant)).toMatchObject({ ok: true });
    expect(fs.readFileSync(init, "utf8")).toBe("planted\n");
  });

  it("credentials inside toolchain folders shown read-only (RubyGems, uv, nvm's global npmrc) are not readable; the toolchains are", async () => {
    write(path.join(home, ".gem", "credentials"), ":rubygems_api_key: gem-secret\n");
    write(path.join(home, ".gem", "bin", "rake"), "rake-runs\n");
    write(path.join(home, ".local", "share", "uv", "credentials", "credentials.toml"), 'password = "uv-secret"\n');
    write(path.join(home, ".local", "share", "uv", "python", "marker"), "uv-python\n");
    write(path.join(home, ".nvm", "versions", "node", "v22.1.0", "etc", "npmrc"), "//registry.npmjs.org/:_authToken=nvm-secret\n");
    write(path.join(home, ".nvm", "versions", "node", "v22.1.0", "bin", "node-marker"), "nvm-node\n");
    const read =
      "cat ~/.gem/credentials ~/.local/share/uv/credentials/credentials.toml ~/.nvm/versions/node/v22.1.0/etc/npmrc " +
      "~/.gem/bin/rake ~/.local/share/uv/python/marker ~/.nvm/versions/node/v22.1.0/bin/node-marker";
    expect((await outside(read)).out).toMatch(/gem-secret[\s\S]*uv-secret[\s\S]*nvm-secret/);
    const probe = await inside(read);
    expect(probe.out).not.toMatch(/gem-secret|uv-secret|nvm-secret/);
    // The folders around them are still shown: the toolchains run.
    expect(probe.out).toMatch(/rake-runs[\s\S]*uv-python[\s\S]*nvm-node/);
  });

  it("a unix socket of the user's session (an ssh-agent under XDG_RUNTIME_DIR) answers outside, not inside", async () => {
    const socket = path.join(env.XDG_RUNTIME_DIR ?? "", "agent.sock");
    const server = net.createServer((c) => c.end("agent says hi\n"));
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    closers.push(() => server.close());
    const connect = `node -e "require('net').connect(process.argv[1]).on('data', (d) => { process.stdout.write(String(d)); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(3); })" ${socket}`;
    expect(await outside(connect)).toMatchObject({ ok: true, out: "agent says hi\n" });
    const probe = await inside(connect);
    expect(probe.ok).toBe(false);
    expect(probe.out).not.toContain("agent says hi");
  });

  it.skipIf(!writable("/run"))(
    "a local service's unix socket under /run (PostgreSQL's) answers outside, not inside, with the network open or none; /run's links stay",
    async () => {
      const dir = fs.mkdtempSync("/run/otto-test-db-");
      const link = `${dir}-link`;
      closers.push(
        () => fs.rmSync(dir, { recursive: true, force: true }),
        () => fs.rmSync(link, { force: true }),
      );
      const socket = path.join(dir, ".s.PGSQL.5432");
      const server = net.createServer((c) => c.end("database says hi\n"));
      await new Promise<void>((resolve) => server.listen(socket, resolve));
      closers.unshift(() => server.close());
      fs.symlinkSync("/usr", link);
      const connect = `node -e "require('net').connect(process.argv[1]).on('data', (d) => { process.stdout.write(String(d)); process.exit(0); }).on('error', (e) => { console.log(e.code); process.exit(3); })" ${socket}`;
      expect(await outside(connect)).toMatchObject({ ok: true, out: "database says hi\n" });
      for (const network of ["open", "none"] as const) {
        const probe = await inside(connect, { network, allow_read: [], allow_write: [], allow_ports: [] });
        expect(probe.ok).toBe(false);
        expect(probe.out).not.toContain("database says hi");
      }
      // A top-level link of /run (NixOS's /run/current-system) still leads where it did.
      expect((await inside(`readlink ${link} && test -x ${link}/bin/env && echo reached`)).out).toBe("/usr\nreached\n");
    },
  );

  it("the environment is allow-listed: tokens and provider keys unset, PATH and otto's push block kept", async () => {
    Object.assign(env, {
      FOO_TOKEN: "foo-token-value-0123456789",
      ANTHROPIC_API_KEY: "sk-ant-api03-probe-0123456789",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "url./nowhere/.pushInsteadOf",
      GIT_CONFIG_VALUE_0: "",
    });
    const probe = `echo "[\${FOO_TOKEN-unset}][\${ANTHROPIC_API_KEY-unset}][$GIT_CONFIG_KEY_0]"; command -v git; cat /proc/1/environ | tr '\\0' '\\n' | grep -c -e FOO_TOKEN -e ANTHROPIC || true`;
    const control = await outside(probe);
    expect(control.out).toContain("[foo-token-value-0123456789][sk-ant-api03-probe-0123456789]");
    const result = await inside(probe);
    expect(result.ok).toBe(true);
    expect(result.out).toContain("[unset][unset][url./nowhere/.pushInsteadOf]");
    expect(result.out).toMatch(/\/git\n0\n$/);
  });

  it("a session's git commit inside gets the user's identity, not their ~/.gitconfig", async () => {
    write(path.join(home, ".gitconfig"), "[user]\n\tname = Ada Probe\n\temail = ada@example.test\n");
    const commit = "git commit -q --allow-empty -m inside && git log -1 --format=%an/%ae/%cn";
    expect(await inside(commit)).toMatchObject({ ok: true, out: "Ada Probe/ada@example.test/Ada Probe\n" });
  });

  it("network none: a server on the host's 127.0.0.1 answers outside and with the network open and its port allowed, not with none", async () => {
    const server = http.createServer((_req, res) => res.end("pong"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => server.close());
    const { port } = server.address() as net.AddressInfo;
    const get = `node -e "fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(t => console.log(t), e => { console.log(e.cause?.code ?? e.message); process.exit(3); })"`;
    expect(await outside(get)).toMatchObject({ ok: true, out: "pong\n" });
    // open: the host's loopback only through allow_ports (network.test.ts has the closed case).
    expect(await inside(get, { network: "open", allow_read: [], allow_write: [], allow_ports: [port] })).toMatchObject({
      ok: true,
      out: "pong\n",
    });
    const none = await inside(get, { network: "none", allow_read: [], allow_write: [] });
    expect(none.ok).toBe(false);
    expect(none.out).not.toContain("pong");
  });

  it("hides the user's secret-like files in the tree, keeps stand-ins and tracked files, and shows what allow_read names", async () => {
    write(path.join(repo, ".env"), "DB_PASSWORD=tree-secret\n");
    write(path.join(repo, "config", "server.pem"), "PEM tree-secret\n");
    write(path.join(repo, ".env.example"), "DB_PASSWORD=\n");
    write(path.join(repo, "test", "fixtures", "tls.key"), "FIXTURE KEY\n");
    write(path.join(repo, ".gitignore"), ".env\n*.pem\n");
    execFileSync("git", ["add", ".env.example", ".gitignore", "test/fixtures/tls.key"], { cwd: repo, env });
    const read = "cat .env config/server.pem; cat .env.example test/fixtures/tls.key";
    expect((await outside(read)).out).toContain("tree-secret");
    const probe = await inside(read);
    expect(probe.out).not.toContain("tree-secret");
    expect(probe.out).toMatch(/^DB_PASSWORD=\nFIXTURE KEY\n/m);
    // The index in version 4 (prefix-compressed names) is read as well.
    execFileSync("git", ["update-index", "--index-version", "4"], { cwd: repo, env });
    expect((await inside("cat test/fixtures/tls.key")).out).toBe("FIXTURE KEY\n");
    const allowed = await inside("cat .env", { network: "open", allow_read: [".env"], allow_write: [] });
    expect(allowed.out).toBe("DB_PASSWORD=tree-secret\n");
  });
});
