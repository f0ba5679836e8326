import { execFile } from "node:child_process";
import { promisify } from "node:util";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { until, useE2E } from "../../support/index.ts";
import { recordFigure } from "../../support/figures.ts";
import { detectSandbox } from "../../../src/sandbox/index.ts";
import { ottoPr, useForges } from "../pr/forges.ts";
import { analysis, fixReview, summary } from "../pr/fix-script.ts";
import { checkScript, commitToPr, fixSession, outsideDir, readIf, remoteHolds, scriptStep, trackedPr, useOutsideTmp } from "./pr-fix.ts";

/*
 * What the sandbox lets code otto did not write (the PR's check script, a fix session's shell) see
 * and change of the user's home and environment: the caches a package manager or OpenCode itself
 * loads code from, the credentials that sit beside them, an agent socket in the runtime folder,
 * and a model provider's key in the environment. Home and runtime folder live outside /tmp (which
 * the sandbox replaces), so each would be in reach if the sandbox let it.
 */

const verify = ["sh check.sh"];
const FIGURE =
  "the user's home and environment reached from the sandbox (code caches, credentials beside them, agent socket, provider key)";

describe.skipIf(detectSandbox().kind === "none")("hostile code in the sandbox: the user's home and environment stay out of reach", () => {
  const e2e = useE2E();
  const forges = useForges();
  const base = useOutsideTmp();

  it("the check script cannot plant code where OpenCode, Gradle or Maven load it, nor read the credentials beside the caches", async () => {
    const secrets = {
      ".gradle/gradle.properties": "systemProp.gradle.wrapperPassword=gradle-secret-hostile-41\n",
      ".m2/settings.xml": "<settings><servers><server><password>maven-secret-hostile-42</password></server></servers></settings>\n",
      ".cargo/credentials.toml": '[registry]\ntoken = "cargo-secret-hostile-43"\n',
    };
    const { ws, client } = await trackedPr(e2e, forges, {
      base: base(),
      verify,
      prepare: async (w) => {
        for (const [rel, content] of Object.entries(secrets)) {
          fs.mkdirSync(path.dirname(path.join(w.dirs.home, rel)), { recursive: true });
          fs.writeFileSync(path.join(w.dirs.home, rel), content);
        }
        fs.mkdirSync(path.join(w.dirs.cacheHome, "opencode", "node_modules"), { recursive: true });
        const plugin = path.join(w.dirs.cacheHome, "opencode", "node_modules", "otto-e2e-plugin");
        const home = w.dirs.home;
        await commitToPr(w, {
          "check.sh": checkScript(
            [
              `mkdir -p '${plugin}' && echo 'export default async () => ({})' > '${plugin}/index.js'`,
              `mkdir -p '${home}/.gradle/init.d' && echo 'println "init script"' > '${home}/.gradle/init.d/otto-e2e.gradle'`,
              `echo '<settings/>' > '${home}/.m2/settings.xml'`,
              ...Object.keys(secrets).map((rel) => `cat '${home}/${rel}' >> .build-cache/read.txt`),
              "echo tried > .build-cache/caches.tried",
            ]
              .map((line) => `${line} 2>/dev/null`)
              .join("\n"),
          ),
        });
      },
    });
    e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), fixSession([]));

    await ottoPr(client, "fix");

    const secretValues = ["gradle-secret-hostile-41", "maven-secret-hostile-42", "cargo-secret-hostile-43"];
    const read = readIf(path.join(ws.project, ".build-cache/read.txt")) ?? "";
    const got = [
      fs.existsSync(path.join(ws.dirs.cacheHome, "opencode", "node_modules", "otto-e2e-plugin")),
      fs.existsSync(path.join(ws.dirs.home, ".gradle", "init.d")),
      fs.readFileSync(path.join(ws.dirs.home, ".m2/settings.xml"), "utf8") !== secrets[".m2/settings.xml"],
      secretValues.some((v) => read.includes(v)),
    ];
    recordFigure({ name: FIGURE, tried: got.length, through: got.filter(Boolean).length });

    // Positive control: the check ran to its end (twice: before and after the fix).
    expect(readIf(path.join(ws.project, ".build-cache/check.ran"))).toBe("ran\nran\n");
    expect(readIf(path.join(ws.project, ".build-cache/caches.tried"))).toBe("tried\n");
    expect(fs.existsSync(path.join(ws.dirs.cacheHome, "opencode", "node_modules", "otto-e2e-plugin")), "OpenCode's plugin folder").toBe(
      false,
    );
    expect(fs.existsSync(path.join(ws.dirs.home, ".gradle", "init.d")), "Gradle's init.d").toBe(false);
    expect(fs.readFileSync(path.join(ws.dirs.home, ".m2/settings.xml"), "utf8")).toBe(secrets[".m2/settings.xml"]);
    for (const secret of secretValues) {
      expect(read, secret).not.toContain(secret);
      expect(remoteHolds(ws, secret), secret).toBe(false);
    }
  });

  it("an agent socket in $XDG_RUNTIME_DIR (SSH_AUTH_SOCK unset) does not answer the check script", async () => {
    const runtime = outsideDir(base(), "run");
    const socket = path.join(runtime, "keyring", "ssh");
    fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    const connections: string[] = [];
    const server = net.createServer((conn) => {
      conn.on("data", (d) => connections.push(d.toString("hex")));
      conn.end("\0\0\0\x01\x05");
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      // Connects, says hello, records what it got: the same line runs in the check and, unsandboxed, below.
      const probe = (out: string): string =>
        `node -e 'const s=require("net").connect(process.argv[1]);s.on("connect",()=>{require("fs").appendFileSync(process.argv[2],"connected\\n");s.end("hello")});s.on("error",e=>require("fs").appendFileSync(process.argv[2],e.code+"\\n"))' '${socket}' '${out}'`;
      const { ws, client } = await trackedPr(e2e, forges, {
        base: base(),
        verify,
        env: { XDG_RUNTIME_DIR: runtime },
        prepare: (w) => commitToPr(w, { "check.sh": checkScript(probe(".build-cache/socket.txt")) }),
      });
      e2e.model.script(fixReview("APPROVE"), analysis(ws, summary("code: add() subtracts")), fixSession([]));

      await ottoPr(client, "fix");

      // Positive control: the check ran its probe (and got an error, not an answer).
      const inside = readIf(path.join(ws.project, ".build-cache/socket.txt")) ?? "";
      recordFigure({ name: FIGURE, tried: 1, through: inside.includes("connected") || connections.length > 0 ? 1 : 0 });
      expect(inside).toMatch(/\S/);
      expect(inside).not.toContain("connected");
      expect(connections).toEqual([]);
      // The same probe outside the sandbox reaches the agent: the socket was there to be found.
      const control = path.join(runtime, "control.txt");
      // Asynchronously: the server answers from this process's event loop.
      await promisify(execFile)("/bin/sh", ["-c", probe(control)]);
      expect(readIf(control)).toBe("connected\n");
      await until("the agent socket to hear the probe", () => connections.length > 0, 10_000);
      expect(connections).toEqual([Buffer.from("hello").toString("hex")]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("a model provider's key in otto's environment is not in the sandbox: the check's and the session's notes push no key", async () => {
    const key = "sk-ant-api03-hostileE2E-0123456789abcdefghijklmnopqrstuv";
    const { ws, client } = await trackedPr(e2e, forges, {
      base: base(),
      verify,
      env: { ANTHROPIC_API_KEY: key },
      files: { "check.sh": checkScript('echo "check:$ANTHROPIC_API_KEY" > notes-check.txt') },
    });
    e2e.model.script(
      fixReview("APPROVE"),
      analysis(ws, summary("code: add() subtracts")),
      fixSession([scriptStep('echo "session:$ANTHROPIC_API_KEY" > notes.txt\n', "call_notes", "take notes")]),
    );

    await ottoPr(client, "fix");

    // Positive control: both wrote their notes.
    const notes = [readIf(path.join(ws.project, "notes-check.txt")), readIf(path.join(ws.project, "notes.txt"))];
    recordFigure({ name: FIGURE, tried: 2, through: notes.filter((n) => n?.includes(key)).length });
    expect(notes[0]).toMatch(/^check:/);
    expect(notes[1]).toMatch(/^session:/);
    for (const n of notes) expect(n).not.toContain(key);
    expect(remoteHolds(ws, key)).toBe(false);
  });
});
