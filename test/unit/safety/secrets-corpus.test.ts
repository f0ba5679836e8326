import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PluginInput } from "@opencode-ai/plugin";
import { collectSecrets } from "../../../src/config/secrets.ts";
import { KnownSecrets, createLogger, envSecrets } from "../../../src/core/index.ts";
import { crewPaths } from "../../../src/crew/paths.ts";
import { transact } from "../../../src/crew/store.ts";
import { writeAttempt, writeStepRecord } from "../../../src/execute/history.ts";
import { createNotifier } from "../../../src/notify/notifier.ts";
import { newDocument } from "../../../src/pr/commands/add.ts";
import { sanitizeForPost } from "../../../src/pr/sanitize.ts";
import { createPrStore } from "../../../src/pr/store/store.ts";
import { specPaths } from "../../../src/spec/layout.ts";
import { renderHistory } from "../../../src/spec/pipeline/history.ts";
import { recordRaisedQuestions } from "../../../src/spec/pipeline/questions-file.ts";
import { writeHistoryFile, writeSpecFile } from "../../../src/spec/pipeline/spec-files.ts";
import { samplePr } from "../pr/sample-pr.ts";
import { recordFigure } from "../../support/figures.ts";

/*
 * The secrets corpus: secrets of every kind otto knows, planted in model output, CI logs and
 * reviewer comments, pushed through every sink otto writes or posts to. Each entry is the text as
 * planted and the part of it that must never come out (`needle`).
 */

const ADO_PAT = "x7k2m4q9z3w8r5t6y1u0p2o4i6l8j5h3g7f9d1s2a4c6v8b0n5e3"; // ADO PATs: 52 base32 characters
const SHORT = "zq9!"; // a short configured password: no pattern knows it
const WEBHOOK = "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX";
const ENV = {
  GITHUB_TOKEN: "plain-env-token-without-a-format",
  GH_TOKEN: "gh-cli-token-value-1234",
  SYSTEM_ACCESSTOKEN: "ado-pipeline-job-token-5678",
  OPENCODE_SERVER_PASSWORD: "hunter22-opencode",
  OTTO_ADO_PAT: "env-ado-pat-value-9012",
};
const CONFIG = {
  pr: { providers: { ado: { pat: ADO_PAT } } },
  opencode: { password: SHORT },
  notify: { webhooks: [{ type: "slack", url: WEBHOOK }] },
};
const PASSWORD_WITH_SYMBOLS = "p@ss/w0rd#1";

interface Planted {
  kind: string;
  text: string;
  needle: string;
}

const JWT =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
const same = (kind: string, text: string): Planted => ({ kind, text, needle: text });

/**
 * `secret` base64-encoded inside a longer blob, `before` bytes after a group boundary (the three
 * alignments); the needle is the groups that encode the secret's bytes alone.
 */
function inBase64(kind: string, secret: string, before: number, urlSafe: boolean): Planted {
  const prefix = "otto-corpus:".slice(0, 9 + before);
  const text = Buffer.from(`${prefix}${secret}:tail`).toString(urlSafe ? "base64url" : "base64");
  const needle = text.slice(Math.ceil(prefix.length / 3) * 4, Math.floor((prefix.length + secret.length) / 3) * 4);
  return { kind: `${kind} in ${urlSafe ? "URL-safe " : ""}base64 (alignment ${before})`, text, needle };
}
const ZERO_WIDTH = ["\u200B", "\u200C", "\u200D", "\u2060", "\uFEFF", "\u00AD"];
const splitBy = (secret: string, chars: string[]): string =>
  Array.from(secret)
    .map((c, i) => `${c}${chars[i % chars.length] ?? ""}`)
    .join("");

/** Lines of a key body (64 base64 characters each, as PEM writes them) that start with `head`: not a real key. */
const keyLines = (head: string, offset: number, count = 6): string[] => {
  const body = head + Buffer.from(Array.from({ length: 48 * count }, (_, i) => (i * 37 + offset) % 256)).toString("base64");
  return Array.from({ length: count }, (_, i) => body.slice(i * 64, (i + 1) * 64));
};
const RSA_BODY = keyLines("MIIEpAIBAAKCAQEA", 11);
const SSH_BODY = keyLines("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB", 23);
const PKCS8_BODY = keyLines("MIIEvgIBADANBgkqhkiG9w0BAQEFAASC", 41);
const PAT_AS_USER = "q7k2m4q9z3w8r5t6y1u0p2o4i6l8j5h3g7f9d1s2a4c6v8b0n5e3"; // an Azure DevOps PAT nobody configured

const CORPUS: Planted[] = [
  same("GitHub classic token", "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s99"),
  same("GitHub OAuth token", "gho_16C7e42F292c6912E7710c838347Ae178B4a"),
  same("GitHub app token", "ghs_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"),
  same("GitHub fine-grained token", "github_pat_11ABCDEFG0aBcDeFgHiJkL_mnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP"),
  same("JWT", JWT),
  { kind: "URL credentials", text: "https://deploy:s3cr3tPassw0rd@git.example.com/org/repo.git", needle: "s3cr3tPassw0rd" },
  { kind: "URL credentials (database)", text: "postgres://app:Db-Pa55-Word@db.internal:5432/prod", needle: "Db-Pa55-Word" },
  {
    kind: "Authorization token header",
    text: "Authorization: token 0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3",
    needle: "0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3",
  },
  { kind: "Bearer header", text: "Authorization: Bearer opaque-bearer-value-77665544", needle: "opaque-bearer-value-77665544" },
  same("GitLab token", "glpat-Abc123Def456Ghi789Jk"),
  same("npm token", "npm_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"),
  same("Google API key", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
  same("Slack bot token", "xoxb-2048-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
  same("Slack app token", "xapp-1-A0123456789-1234567890123-0123456789abcdef0123456789abcdef"),
  same("OpenAI key", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345"),
  same("AWS access key id", "AKIAIOSFODNN7EXAMPLE"),
  {
    kind: "AWS secret (assignment)",
    text: "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    needle: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  },
  {
    kind: "AWS secret (JSON)",
    text: '{"AccessKeyId": "x", "SecretAccessKey": "Zm9vYmFyYmF6cXV4c2VjcmV0a2V5MTIzNDU2"}',
    needle: "Zm9vYmFyYmF6cXV4c2VjcmV0a2V5MTIzNDU2",
  },
  {
    kind: "RSA private key",
    text: "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx1zRSAkeyBODYline\n-----END RSA PRIVATE KEY-----",
    needle: "MIIEowIBAAKCAQEAx1zRSAkeyBODYline",
  },
  {
    kind: "OpenSSH private key",
    text: "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUkeyBODY\n-----END OPENSSH PRIVATE KEY-----",
    needle: "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUkeyBODY",
  },
  {
    kind: "PGP private key",
    text: "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0pgpKEYbodyLINE\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----",
    needle: "lQOYBF0pgpKEYbodyLINE",
  },
  {
    kind: "RSA private key from its second line (no BEGIN line)",
    text: [...RSA_BODY, "-----END RSA PRIVATE KEY-----"].join("\n"),
    needle: RSA_BODY[0] ?? "",
  },
  {
    kind: "OpenSSH private key from its third line (no BEGIN line, no key header)",
    text: [...SSH_BODY.slice(1), "-----END OPENSSH PRIVATE KEY-----"].join("\n"),
    needle: SSH_BODY[3] ?? "",
  },
  { kind: "PKCS#8 private key, neither BEGIN nor END line", text: PKCS8_BODY.slice(0, 4).join("\n"), needle: PKCS8_BODY[2] ?? "" },
  {
    kind: "GitHub token as a URL's user name",
    text: "git clone https://ghp_UrLuSeRn4meT0kenV4lue0123456789ab@github.com/octo/app.git",
    needle: "ghp_UrLuSeRn4meT0kenV4lue0123456789ab",
  },
  {
    kind: "x-access-token URL credentials",
    text: "remote: https://x-access-token:v1.9f8e7d6c5b4a39281706f5e4d3c2b1a0@github.com/octo/app",
    needle: "v1.9f8e7d6c5b4a39281706f5e4d3c2b1a0",
  },
  { kind: "Azure DevOps PAT as a URL's user name", text: `https://${PAT_AS_USER}@dev.azure.com/org/proj/_git/app`, needle: PAT_AS_USER },
  { kind: "env password", text: "DB_PASSWORD=Tr0ub4dor&3x", needle: "Tr0ub4dor" },
  { kind: "YAML client secret", text: "client_secret: 9f8e7d6c5b4a3210fedc", needle: "9f8e7d6c5b4a3210fedc" },
  { kind: "query string API key", text: "GET https://api.example.com/v1/items?api_key=q1w2e3r4t5y6&page=2", needle: "q1w2e3r4t5y6" },
  { kind: "quoted env secret", text: "export API_TOKEN='a quoted secret 42'", needle: "a quoted secret 42" },
  same("configured Azure DevOps PAT", ADO_PAT),
  {
    kind: "ADO PAT as Basic credentials",
    text: `curl -H "X: ${Buffer.from(`:${ADO_PAT}`).toString("base64")}"`,
    needle: Buffer.from(`:${ADO_PAT}`).toString("base64"),
  },
  same("configured short password", SHORT),
  same("notify webhook URL", WEBHOOK),
  same("GITHUB_TOKEN (no format)", ENV.GITHUB_TOKEN),
  same("GH_TOKEN", ENV.GH_TOKEN),
  same("SYSTEM_ACCESSTOKEN", ENV.SYSTEM_ACCESSTOKEN),
  same("OPENCODE_SERVER_PASSWORD", ENV.OPENCODE_SERVER_PASSWORD),
  same("OTTO_ADO_PAT", ENV.OTTO_ADO_PAT),
  same("configured password, URL-encoded", encodeURIComponent(PASSWORD_WITH_SYMBOLS)),
  inBase64("configured Azure DevOps PAT", ADO_PAT, 0, false),
  inBase64("GITHUB_TOKEN", ENV.GITHUB_TOKEN, 1, false),
  inBase64("notify webhook URL", WEBHOOK, 2, false),
  inBase64("configured password", PASSWORD_WITH_SYMBOLS, 0, true),
  inBase64("SYSTEM_ACCESSTOKEN", ENV.SYSTEM_ACCESSTOKEN, 1, true),
  inBase64("OPENCODE_SERVER_PASSWORD", ENV.OPENCODE_SERVER_PASSWORD, 2, true),
  same("GH_TOKEN in plain base64 without padding", Buffer.from(ENV.GH_TOKEN).toString("base64").replace(/=+$/, "")),
  same("configured Azure DevOps PAT in hex", Buffer.from(ADO_PAT).toString("hex")),
  same("OTTO_ADO_PAT in upper-case hex", Buffer.from(ENV.OTTO_ADO_PAT).toString("hex").toUpperCase()),
  same("GITHUB_TOKEN split by zero-width spaces", splitBy(ENV.GITHUB_TOKEN, ["\u200B"])),
  same("configured password split by every invisible character", splitBy(PASSWORD_WITH_SYMBOLS, ZERO_WIDTH)),
  same("notify webhook URL split by soft hyphens", splitBy(WEBHOOK, ["\u00AD"])),
];

/** The known secrets of a runtime with CONFIG and ENV: what every sink is given. */
const known = new KnownSecrets([...envSecrets(ENV), ...collectSecrets(CONFIG), PASSWORD_WITH_SYMBOLS]).values();

/** The corpus as model output, a CI log and a reviewer comment would carry it. */
const BLOB = [
  "I looked at the failing job. The log says:",
  ...CORPUS.map((p, i) => `2026-02-06T12:00:${String(i).padStart(2, "0")}Z [${p.kind}] ${p.text}`),
  "Reviewer: please rotate these before merging.",
].join("\n");

const dirs: string[] = [];
const tmp = async (): Promise<string> => {
  const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "otto-corpus-")));
  dirs.push(dir);
  return dir;
};
afterAll(async () => Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true }))));

/** Every sink's output for BLOB. */
async function sinkOutputs(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};

  out["posted comment / review"] = sanitizeForPost(BLOB, known);

  const sent: string[] = [];
  const notify = createNotifier({
    webhooks: [
      { type: "teams", url: "https://teams.example.com/hook" },
      { type: "slack", url: WEBHOOK },
      { type: "json", url: "https://json.example.com/hook" },
    ],
    command: "notify-me",
    toast: async (title, message) => void sent.push(`toast ${title} ${message}`),
    runCommand: async (command, env) => (sent.push(`command ${command} ${JSON.stringify(env)}`), { exitCode: 0 }),
    fetch: (async (url: string, init: { body: string }) => {
      sent.push(`webhook ${init.body}`);
      return new Response(null, { status: url.includes("json") ? 500 : 200 });
    }) as unknown as typeof fetch,
    now: () => new Date("2026-02-06T12:00:00Z"),
    secrets: known,
    timeoutMs: 1000,
  });
  const report = await notify({
    kind: "human_needed",
    title: `Needs you: ${BLOB.slice(0, 200)}`,
    text: BLOB,
    url: "https://deploy:s3cr3tPassw0rd@git.example.com/pr/1",
    facts: { log: BLOB },
  });
  out["notifications (webhooks, toast, command)"] = `${sent.join("\n")}\n${JSON.stringify(report)}`;

  const prDir = await tmp();
  const store = createPrStore(prDir, () => known);
  const doc = newDocument(samplePr(), "github-octo-app-42", 3, "2026-02-06T10:00:00.000Z");
  await store.create({ ...doc, sections: [{ title: "Fix History", body: BLOB }], log: [BLOB.replace(/\n/g, " ")] });
  await store.update("github-octo-app-42", (d) => ({ ...d, sections: [...d.sections, { title: "Comment History", body: BLOB }] }));
  out["PR document"] = await fs.readFile(path.join(prDir, "github-octo-app-42.md"), "utf8");

  const repo = await tmp();
  const paths = specPaths(repo, "rate-limit");
  await writeSpecFile(paths.design, `# Design\n\n${BLOB}`, known);
  await recordRaisedQuestions(paths, [{ title: "Which token?", question: BLOB }], "design (2026-02-06)", known);
  await writeHistoryFile(
    paths,
    "2026-02-06-design.md",
    renderHistory({
      stage: "design",
      slug: "rate-limit",
      at: new Date(0),
      outcome: BLOB,
      models: {},
      notes: [BLOB],
      dialogs: [{ role: "generate", model: "m", sessionID: "s", dialog: BLOB }],
    }),
    known,
  );
  await writeAttempt(
    paths.history,
    {
      slug: "rate-limit",
      taskId: "1.1",
      title: "t",
      attempt: 1,
      maxAttempts: 2,
      model: "m",
      startedAt: new Date(0),
      durationMs: 1,
      result: "completed",
      briefing: "b",
      finalMessage: BLOB,
      dialog: BLOB,
    },
    known,
  );
  await writeStepRecord(
    paths.history,
    { slug: "rate-limit", name: "phase-1", heading: "Phase 1", at: new Date(0), steps: [{ name: "verify", outcome: BLOB, dialog: BLOB }] },
    known,
  );
  const specFiles = await fs.readdir(paths.dir, { recursive: true });
  const texts: string[] = [];
  for (const f of specFiles) {
    const file = path.join(paths.dir, f);
    if ((await fs.stat(file)).isFile()) texts.push(await fs.readFile(file, "utf8"));
  }
  out["spec files and history"] = texts.join("\n");
  expect(texts.length).toBeGreaterThanOrEqual(5);

  const logged: unknown[] = [];
  const client = { app: { log: async (body: unknown) => void logged.push(body) } } as unknown as PluginInput["client"];
  const secrets = new KnownSecrets(known);
  createLogger(client, () => secrets.values()).log("warn", BLOB, { error: BLOB, nested: { list: [BLOB, 3] } });
  out["logs (message and extra)"] = JSON.stringify(logged);

  const crewRoot = await tmp();
  const crew = crewPaths(crewRoot);
  await fs.mkdir(path.dirname(crew.crew), { recursive: true });
  await transact(
    crew,
    () => new Date(0),
    ({ post }) => post({ from: "alice", kind: "say", text: BLOB, mentions: [] }),
    known,
  );
  out["crew messages and state"] = `${await fs.readFile(crew.messages, "utf8")}\n${await fs.readFile(crew.crew, "utf8")}`;
  return out;
}

describe("the secrets corpus", () => {
  it("plants at least 30 secrets, each of which the blob really contains", () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(30);
    for (const p of CORPUS) expect(BLOB).toContain(p.needle);
  });

  it("lets none of them reach any sink", async () => {
    const outputs = await sinkOutputs();
    const leaks: string[] = [];
    for (const [sink, text] of Object.entries(outputs)) {
      for (const p of CORPUS) if (text.includes(p.needle)) leaks.push(`${p.kind} reached ${sink}`);
    }
    // Recorded before any assertion, so a regression shows in the bench as a number.
    // One unit on both sides: a (secret, sink) pair is one try, and one leak when the sink's output holds the secret.
    recordFigure({
      name: "secrets planted in model output, CI logs and comments, times every sink (secret × sink pairs)",
      tried: CORPUS.length * Object.keys(outputs).length,
      through: leaks.length,
    });
    for (const [sink, text] of Object.entries(outputs)) expect(text.length, sink).toBeGreaterThan(0);
    process.stdout.write(`secrets planted: ${CORPUS.length} / sinks: ${Object.keys(outputs).length} / reaching a sink: ${leaks.length}\n`);
    expect(leaks).toEqual([]);
    // The text around them survives: redaction is not blanking.
    expect(outputs["posted comment / review"]).toContain("Reviewer: please rotate these before merging.");
    expect(outputs["posted comment / review"]).toContain("https://[REDACTED]@git.example.com/org/repo.git");
  });
});
