import { afterEach, describe, expect, it } from "vitest";
import { createAdoBackend } from "../../../src/pr/ado/backend.ts";
import { createGithubBackend, MAX_COMMENT_PAGES } from "../../../src/pr/github/backend.ts";
import { readCapped } from "../../../src/pr/read-capped.ts";
import { FAKE_ADO_PAT, startFakeAdo, type FakeAdo } from "../../support/fake-ado/index.ts";
import { FAKE_GITHUB_TOKEN, startFakeGithub, type FakeGithub } from "../../support/fake-github/index.ts";
import { testConfig, testDeps } from "./support.ts";

/*
 * What a forge sends is read with a bound while it streams: a CI log keeps its end in a ring of
 * bounded size, anything else stops at its cap, and comment lists stop after a number of pages.
 */

const MB = 1024 * 1024;
const CHUNK = 64 * 1024;

/** A stream of `total` bytes made on demand (nothing is held by the test): numbered lines, then `last`. */
function lazyLog(total: number, last: string): { stream: ReadableStream<Uint8Array>; pulls: () => number } {
  const line = new TextEncoder().encode(`${"x".repeat(63)}\n`);
  let sent = 0;
  let pulls = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulls++;
      if (sent >= total) {
        controller.enqueue(new TextEncoder().encode(last));
        controller.close();
        return;
      }
      const chunk = new Uint8Array(CHUNK);
      for (let at = 0; at < CHUNK; at += line.length) chunk.set(line, at);
      sent += CHUNK;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulls: () => pulls };
}

/** A 50 MB CI log whose failure is at its end. */
const bigLog = (): string =>
  `${"2026-02-06T12:00:00Z step output line that says nothing\n".repeat(Math.ceil((50 * MB) / 56))}FAIL test/auth.test.ts\nexpected 1 to be 2\n##[error]Process completed with exit code 1.\n`;

describe("readCapped", () => {
  it("reads a 50 MB log through and keeps only its end, holding at most the cap and one chunk", async () => {
    const { stream } = lazyLog(50 * MB, "the failure is here\n");
    const read = await readCapped(stream, { maxBytes: 200_000, keep: "tail" });
    expect(read.bytes).toBeGreaterThan(50 * MB);
    expect(read.truncated).toBe(true);
    expect(read.text.endsWith("the failure is here\n")).toBe(true);
    expect(Buffer.byteLength(read.text)).toBeLessThanOrEqual(200_000);
    expect(read.peakBytes).toBeLessThanOrEqual(200_000 + CHUNK);
  });

  it("stops reading at the cap when the start is what counts, and cancels the rest", async () => {
    const { stream, pulls } = lazyLog(50 * MB, "never read\n");
    const read = await readCapped(stream, { maxBytes: MB });
    expect(read.truncated).toBe(true);
    expect(Buffer.byteLength(read.text)).toBe(MB);
    expect(pulls()).toBeLessThan(MB / CHUNK + 4);
  });

  it("returns a body under the cap whole", async () => {
    const read = await readCapped(new Response("small body").body, { maxBytes: 100, keep: "tail" });
    expect(read).toMatchObject({ text: "small body", truncated: false });
  });

  it("keeps a body read to its end when releasing the reader would throw (Bun's fetch bodies buffered whole)", async () => {
    // Bun 1.3's releaseLock on such a body throws "undefined is not a function": the log was lost.
    const stream = new Response("FAIL test/math.test.js\n").body!;
    const reader = stream.getReader();
    reader.releaseLock = () => {
      throw new TypeError("undefined is not a function");
    };
    const body = { getReader: () => reader } as unknown as ReadableStream<Uint8Array>;
    const read = await readCapped(body, { maxBytes: 100, keep: "tail" });
    expect(read).toMatchObject({ text: "FAIL test/math.test.js\n", truncated: false });
  });
});

describe("capped reads from the fake forges", () => {
  const closing: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => void (await Promise.all(closing.splice(0).map((s) => s.close()))));

  it("GitHub: a 50 MB job log is read to its end and kept to 200 KB with a note", async () => {
    const gh: FakeGithub = await startFakeGithub();
    closing.push(gh);
    const backend = createGithubBackend(
      testDeps(testConfig({ pr: { request_timeout: "60s", providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } })),
    );
    const pr = gh.state.addPr({ number: 7 });
    gh.state.setChecks(pr, [{ name: "unit", conclusion: "failure", log: bigLog() }]);
    const info = await backend.getPr({ provider: "github", repo: "octo/app", number: 7 });
    const unit = (await backend.getPipelineStatus(info)).checks.find((c) => c.name === "unit");
    const log = await backend.getBuildLogs(info, unit?.logId ?? "");
    expect(log.length).toBeLessThan(201_000);
    expect(log).toMatch(/^\[otto: the log was longer than 200 KB; only its end is kept\]\n/);
    expect(log).toContain("expected 1 to be 2\n##[error]Process completed with exit code 1.");
  });

  it(`GitHub: a PR with more comments than ${MAX_COMMENT_PAGES} pages is read up to the bound, and otto says so`, async () => {
    const gh: FakeGithub = await startFakeGithub();
    closing.push(gh);
    const deps = testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } }));
    const backend = createGithubBackend(deps);
    const pr = gh.state.addPr({ number: 8 });
    for (let i = 0; i < MAX_COMMENT_PAGES * 100 + 150; i++) gh.state.addComment(pr, `flood ${i}`, "eve");
    const info = await backend.getPr({ provider: "github", repo: "octo/app", number: 8 });
    const before = gh.calls.length;
    const comments = await backend.getComments(info);
    expect(comments).toHaveLength(MAX_COMMENT_PAGES * 100);
    expect(gh.calls.slice(before).filter((c) => c.path.endsWith("/issues/8/comments"))).toHaveLength(MAX_COMMENT_PAGES);
    expect(deps.logs).toContainEqual(
      expect.stringContaining(
        `octo/app#8 has more than ${MAX_COMMENT_PAGES * 100} conversation comments: otto read the first ${MAX_COMMENT_PAGES * 100} and stopped`,
      ),
    );
  });

  it("Azure DevOps: a 50 MB task log is read to its end and kept to 60 KB with a note", async () => {
    const ado: FakeAdo = await startFakeAdo();
    closing.push(ado);
    const backend = createAdoBackend(
      testDeps(testConfig({ pr: { request_timeout: "60s", providers: { ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT } } } })),
    );
    const pr = ado.state.addPr({ id: 41 });
    ado.state.setChecks(pr, [{ name: "ci", result: "failed", log: bigLog() }]);
    const info = await backend.getPr({ provider: "ado", repo: "contoso/payments/app", number: 41 });
    const status = await backend.getPipelineStatus(info);
    const log = await backend.getBuildLogs(info, status.checks[0]?.logId ?? "");
    expect(log.length).toBeLessThan(62_000);
    expect(log).toContain("[otto: the log was longer than 60 KB; only its end is kept]");
    // The fake prefixes every line with a timestamp, as Azure DevOps does.
    expect(log.slice(-300)).toMatch(/expected 1 to be 2\n\S+ ##\[error\]Process completed with exit code 1\./);
  });
});
