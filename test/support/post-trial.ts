import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveConfig } from "../../src/config/index.ts";
import { createAdoBackend } from "../../src/pr/ado/backend.ts";
import type { BackendDeps, PrBackend } from "../../src/pr/backend.ts";
import { createGithubBackend } from "../../src/pr/github/backend.ts";
import type { FaultKind } from "./fake-http.ts";
import { FAKE_ADO_PAT, startFakeAdo } from "./fake-ado/index.ts";
import { FAKE_GITHUB_TOKEN, startFakeGithub } from "./fake-github/index.ts";

/*
 * Posts through a real backend against a fake forge that injects faults into the POSTs, and counts
 * what reached the forge: every post's text is unique, so a text found twice is a duplicate.
 * Shared by test/unit/pr/post-once.test.ts and bench/post-once.ts.
 */

export interface PostTrialOptions {
  forge: "github" | "ado";
  posts: number;
  /** Share of POSTs that fail, 0..1. */
  rate: number;
  kinds: FaultKind[];
  seed?: number;
  /** The client's per-request limit; a hang is cut after it. */
  timeoutMs?: number;
  /**
   * The behaviour before the posting path, for comparison: a plain client that retries a failed
   * POST up to 3 times, as Octokit's retry plugin and the Azure DevOps client did.
   */
  blindRetries?: boolean;
}

export interface PostTrialResult {
  posts: number;
  /** POSTs the fake failed, by kind. */
  faults: Partial<Record<FaultKind, number>>;
  /** POSTs sent (first writes and writes again after a look found nothing). */
  writes: number;
  /** Texts on the forge more than once: the extra copies. */
  duplicates: number;
  /** Calls that returned without error whose text is not on the forge. */
  lost: number;
  /** Calls that threw (the watcher tries again on its next poll). */
  failed: number;
  ms: number;
}

export async function postTrial(options: PostTrialOptions): Promise<PostTrialResult> {
  const timeoutMs = options.timeoutMs ?? 100;
  // The fake drops a hung connection later than the client gives up, as a slow server would.
  const gh = await startFakeGithub({ hangMs: timeoutMs * 5 });
  const ado = await startFakeAdo({ hangMs: timeoutMs * 5 });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "otto-post-trial-"));
  try {
    const { config } = resolveConfig({
      layers: [
        {
          scope: "user",
          file: "trial",
          value: {
            pr: {
              request_timeout: `${timeoutMs}ms`,
              providers: {
                github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN, pause_writes: false },
                ado: { base_url: ado.baseUrl, pat: FAKE_ADO_PAT, organization: "contoso", project: "payments" },
              },
            },
          },
        },
      ],
      env: { HOME: home },
    });
    const deps: BackendDeps = {
      config,
      env: {},
      fetch: globalThis.fetch,
      exec: async () => ({ exitCode: undefined, stdout: "" }),
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      retryBaseMs: 5,
      log: () => undefined,
    };
    let backend: PrBackend;
    let texts: () => string[];
    let pr;
    if (options.forge === "github") {
      gh.state.addPr({ number: 1 });
      backend = createGithubBackend(deps);
      pr = await backend.getPr({ provider: "github", repo: "octo/app", number: 1 });
      texts = () => gh.state.comments.map((c) => c.body);
    } else {
      ado.state.addPr({ id: 1 });
      backend = createAdoBackend(deps);
      pr = await backend.getPr({ provider: "ado", repo: "contoso/payments/app", number: 1 });
      texts = () => ado.state.threads.flatMap((t) => t.comments.map((c) => c.content));
    }
    const calls = options.forge === "github" ? gh.calls : ado.calls;
    const from = calls.length;
    (options.forge === "github" ? gh : ado).faults({
      rate: options.rate,
      kinds: options.kinds,
      seed: options.seed ?? 7,
      match: (c) => c.method === "POST",
    });
    const started = performance.now();
    const outcomes: boolean[] = [];
    const url =
      options.forge === "github"
        ? `${gh.apiUrl}/repos/octo/app/issues/1/comments`
        : `${ado.baseUrl}/contoso/payments/_apis/git/repositories/${pr.meta.repositoryId ?? ""}/pullRequests/1/threads?api-version=7.1`;
    const headers = {
      "content-type": "application/json",
      authorization:
        options.forge === "github" ? `token ${FAKE_GITHUB_TOKEN}` : `Basic ${Buffer.from(`:${FAKE_ADO_PAT}`).toString("base64")}`,
    };
    const blind = async (text: string): Promise<void> => {
      const body = JSON.stringify(
        options.forge === "github"
          ? { body: `${text}\n` }
          : { comments: [{ parentCommentId: 0, content: `${text}\n`, commentType: "text" }], status: "closed" },
      );
      for (let attempt = 0; ; attempt++) {
        const ok = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(timeoutMs) }).then(
          (r) => r.status < 500,
          () => false,
        );
        if (ok) return;
        if (attempt >= 3) throw new Error("gave up");
      }
    };
    for (let i = 0; i < options.posts; i++) {
      outcomes.push(
        await (options.blindRetries ? blind(`trial post ${i}`) : backend.postComment(pr, `trial post ${i}`)).then(
          () => true,
          () => false,
        ),
      );
    }
    const ms = Math.round(performance.now() - started);
    const posted = calls.slice(from).filter((c) => c.method === "POST");
    const faults: PostTrialResult["faults"] = {};
    for (const c of posted) if (c.fault) faults[c.fault] = (faults[c.fault] ?? 0) + 1;
    const onForge = texts();
    let duplicates = 0;
    let lost = 0;
    outcomes.forEach((ok, i) => {
      const count = onForge.filter((t) => t.startsWith(`trial post ${i}\n`)).length;
      duplicates += Math.max(0, count - 1);
      if (ok && count === 0) lost++;
    });
    return { posts: options.posts, faults, writes: posted.length, duplicates, lost, failed: outcomes.filter((ok) => !ok).length, ms };
  } finally {
    await gh.close();
    await ado.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}
