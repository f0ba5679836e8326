import http from "node:http";
import type { AddressInfo } from "node:net";
import fs from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectSandbox, planCommand, type SandboxAccess } from "../../../src/sandbox/index.ts";
import { findPasta } from "../../../src/sandbox/net.ts";
import { developerHome } from "../../support/dev-home.ts";

/*
 * `network: open` is the internet, not the host: a sandboxed command cannot reach a service on the
 * host's 127.0.0.1 (a passwordless `opencode serve`, the user's TUI server, a local database)
 * unless sandbox_access.allow_ports lists its port. Switched off (no pasta), the same command
 * reaches it: the test can fail.
 */

const pasta = findPasta(process.env.PATH ?? "");
const runs = detectSandbox(process.env).kind === "bwrap" && pasta !== undefined;

let servers: http.Server[] = [];
let ports: number[] = [];
const dev = developerHome();

beforeAll(async () => {
  for (let i = 0; i < 2; i++) {
    const server = http.createServer((_req, res) => res.end("host service\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    ports.push((server.address() as AddressInfo).port);
  }
});
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  servers = [];
  ports = [];
  dev.cleanup();
});

// Exits at the answer: a response left unread holds the process until the server's keep-alive ends (5 s).
const probe = (port: number) =>
  `node -e "require('http').get('http://127.0.0.1:${port}/', (r) => { console.log('${port} reached ' + r.statusCode); process.exit(0); }).on('error', (e) => console.log('${port} refused ' + e.code))"`;

async function run(access: SandboxAccess, withPasta: string | undefined) {
  const tree = path.join(dev.root, "tree");
  fs.mkdirSync(tree, { recursive: true });
  const env = { ...process.env, ...dev.env };
  const plan = planCommand(
    {
      mode: "required",
      cwd: tree,
      tree: { root: tree, gitDirs: [] },
      env,
      access,
      ...(withPasta !== undefined ? { pasta: withPasta } : {}),
    },
    `${probe(ports[0] ?? 0)}; ${probe(ports[1] ?? 0)}`,
  );
  const [file, ...args] = plan.argv;
  const result = await execa(file ?? "sh", args, { cwd: tree, env, reject: false, timeout: 60_000 });
  return `${result.stdout}\n${result.stderr}`;
}

describe.skipIf(!runs)("the sandbox's network (real bubblewrap and pasta)", () => {
  it("the host's loopback is out of reach but for the ports allow_ports lists; without pasta it is reached", async () => {
    const [closed, allowed] = ports;
    const out = await run({ network: "open", allow_read: [], allow_write: [], allow_ports: [allowed ?? 0] }, pasta);
    expect(out).toContain(`${closed} refused`);
    expect(out).toContain(`${allowed} reached 200`);
    // pasta ended with the command: none outlives it (this run's pasta is the one forwarding the allowed port).
    const left = await execa("ps", ["-eo", "args"], { reject: false });
    expect(left.stdout.split("\n").filter((line) => line.includes("--config-net") && line.includes(`-T ${allowed}`))).toEqual([]);
    // Switched off: the same command reaches both (the host's network namespace).
    const shared = await run({ network: "open", allow_read: [], allow_write: [], allow_ports: [] }, "");
    expect(shared).toContain(`${closed} reached 200`);
    // none: no network at all, the allowed port neither.
    const none = await run({ network: "none", allow_read: [], allow_write: [], allow_ports: [allowed ?? 0] }, pasta);
    expect(none).toContain(`${allowed} refused`);
  });
});
