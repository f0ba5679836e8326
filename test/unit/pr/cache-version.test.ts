import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGithubBackend } from "../../../src/pr/github/backend.ts";
import type { CachedResponse, PrBackend, PrInfo } from "../../../src/pr/index.ts";
import { CACHE_VERSION, createPrStore } from "../../../src/pr/store/store.ts";
import { FAKE_GITHUB_TOKEN, startFakeGithub, type FakeGithub } from "../../support/fake-github/index.ts";
import { testConfig, testDeps, useTempDir } from "./support.ts";

/*
 * The ETag cache holds mapped values: a cache written before a mapping changed must not keep
 * serving the old shape through 304s. The file carries CACHE_VERSION; another version is empty.
 */

const KEY = "github-octo-app-8";

describe("PR ETag cache versions", () => {
  const tempDir = useTempDir();
  let gh: FakeGithub;
  let backend: PrBackend;
  let dir: string;
  beforeEach(async () => {
    gh = await startFakeGithub();
    backend = createGithubBackend(
      testDeps(testConfig({ pr: { providers: { github: { api_url: gh.apiUrl, token: FAKE_GITHUB_TOKEN } } } })),
    );
    dir = tempDir();
  });
  afterEach(async () => gh.close());

  const cacheFile = () => path.join(dir, ".cache", `${KEY}.json`);
  const readCacheFile = () =>
    JSON.parse(fs.readFileSync(cacheFile(), "utf8")) as { version: number; entries: Record<string, CachedResponse> };

  /** One watcher-style poll of the PR through the store's cache file. */
  async function poll(): Promise<{ info: PrInfo; notModified: number; total: number }> {
    const cache = await createPrStore(dir).loadCache(KEY);
    const mark = gh.calls.length;
    const info = await backend.getPr({ provider: "github", repo: "octo/app", number: 8 }, { cache });
    await cache.save();
    return { info, ...gh.conditionalStats(mark) };
  }

  /** The cache file as an older otto wrote it: mapped values without the fields added since. */
  function writeOldShape(file: (entries: Record<string, CachedResponse>) => unknown): void {
    const saved = readCacheFile();
    const entries = Object.fromEntries(
      Object.entries(saved.entries).map(([k, v]) => {
        const old: Partial<PrInfo> = { ...(v.value as PrInfo) };
        delete old.fork;
        delete old.headRepo;
        delete old.description;
        return [k, { etag: v.etag, value: old }];
      }),
    );
    fs.writeFileSync(cacheFile(), JSON.stringify(file(entries)));
  }

  it("writes the version and answers the next poll from the cache (a 304)", async () => {
    gh.state.addPr({ number: 8 });
    const first = await poll();
    expect(first).toMatchObject({ total: 1, notModified: 0 });
    const file = readCacheFile();
    expect(file.version).toBe(CACHE_VERSION);
    expect(Object.values(file.entries).map((e) => typeof e.etag)).toEqual(["string"]);
    const second = await poll();
    expect(second).toMatchObject({ total: 1, notModified: 1 });
    expect(second.info).toEqual(first.info);
  });

  it("drops a cache file from before versions: the PR is fetched again with every field", async () => {
    gh.state.addPr({ number: 8 });
    const fresh = await poll();
    expect(fresh.info.fork).toBe(false);
    // The unversioned format: the entries themselves at the top level.
    writeOldShape((entries) => entries);
    const after = await poll();
    expect(after).toMatchObject({ total: 1, notModified: 0 });
    expect(after.info).toEqual(fresh.info);
    expect(after.info.fork).toBe(false);
    // Rewritten in the current format, so the poll after that is a 304 again.
    expect(readCacheFile().version).toBe(CACHE_VERSION);
    expect(await poll()).toMatchObject({ total: 1, notModified: 1 });
  });

  it("drops a cache file of another version, and keeps a matching one even with an old shape", async () => {
    gh.state.addPr({ number: 8 });
    await poll();
    writeOldShape((entries) => ({ version: CACHE_VERSION - 1, entries }));
    const after = await poll();
    expect(after).toMatchObject({ total: 1, notModified: 0 });
    expect(after.info.fork).toBe(false);
    // The same file stamped with the current version is trusted: the version is what decides.
    writeOldShape((entries) => ({ version: CACHE_VERSION, entries }));
    const trusted = await poll();
    expect(trusted.notModified).toBe(1);
    expect(trusted.info.fork).toBeUndefined();
  });

  it("treats a broken cache file as empty", async () => {
    gh.state.addPr({ number: 8 });
    fs.mkdirSync(path.dirname(cacheFile()), { recursive: true });
    fs.writeFileSync(cacheFile(), "{not json");
    expect(await poll()).toMatchObject({ total: 1, notModified: 0 });
  });
});
