import fs from "node:fs/promises";
import path from "node:path";
import { OttoError, readTextIfExists, redactDeep, withFileLock, writeFileAtomic } from "../../core/index.ts";
import type { CachedResponse, ResponseCache } from "../backend.ts";
import type { PrLocator } from "../types.ts";
import { parsePrDocument, renderPrDocument, type PrDocument } from "./document.ts";

/*
 * The global PR store: `$XDG_DATA_HOME/otto/prs/<key>.md`, one document per PR, written
 * atomically under a per-document lock so a command and the watcher never lose each other's
 * writes. ETag caches live beside them in `.cache/<key>.json` (only the watcher writes them).
 */

/** `github-<owner>-<repo>-<n>` or `ado-<org>-<n>`: PR numbers repeat across repositories (on
 * Azure DevOps they are unique within an organization). */
export function documentKey(pr: PrLocator): string {
  const [first = "", second = ""] = pr.repo.split("/");
  const parts = pr.provider === "github" ? [pr.provider, first, second, pr.number] : [pr.provider, first, pr.number];
  return parts
    .join("-")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "_");
}

/** The ETag cache of a repository's PR list (the watcher's skim), beside the PRs' own caches. */
export function listCacheKey(provider: PrLocator["provider"], repo: string): string {
  return `list-${provider}-${repo}`.toLowerCase().replace(/[^a-z0-9._-]+/g, "_");
}

export interface PrStore {
  readonly dir: string;
  /** Every readable document, oldest first; unreadable files are reported, not thrown. */
  list(): Promise<{ docs: PrDocument[]; broken: Array<{ file: string; error: string }> }>;
  read(key: string): Promise<PrDocument | undefined>;
  /** Writes a new document; false when one with that key exists already. */
  create(doc: PrDocument): Promise<boolean>;
  /** Read-modify-write under the lock; `change` returning undefined writes nothing. Undefined when the document is gone. */
  update(key: string, change: (doc: PrDocument) => PrDocument | undefined): Promise<PrDocument | undefined>;
  remove(key: string): Promise<boolean>;
  loadCache(key: string): Promise<FileCache>;
}

/**
 * The cache file's format, bumped whenever a backend changes what it caches: the values are
 * mapped (src/pr/github/conditional.ts), so a new field in a mapping (PrInfo.fork, headRepo,
 * description) would otherwise stay missing until the PR changed upstream. A file of another
 * version (or of none, before versions) loads as an empty cache: one full poll per PR.
 */
export const CACHE_VERSION = 2;

interface CacheFile {
  version: number;
  entries: Record<string, CachedResponse>;
}

export interface FileCache extends ResponseCache {
  save(): Promise<void>;
}

/**
 * `secrets` (read at each write: a token resolved later joins them) and the token formats are
 * redacted from every document written: sections, log lines and frontmatter alike.
 */
export function createPrStore(dir: string, secrets: () => readonly string[] = () => []): PrStore {
  const render = (doc: PrDocument): string => renderPrDocument(redactDeep(doc, secrets()));
  const fileOf = (key: string): string => {
    if (!/^[a-z0-9._-]+$/.test(key))
      throw new OttoError("pr_bad_id", `'${key}' is not a PR document name.`, "Run /otto-pr list for the tracked PRs.");
    return path.join(dir, `${key}.md`);
  };
  const cacheOf = (key: string): string => path.join(dir, ".cache", `${key}.json`);

  async function read(key: string): Promise<PrDocument | undefined> {
    const text = await readTextIfExists(fileOf(key));
    return text === undefined ? undefined : parsePrDocument(key, text);
  }

  return {
    dir,
    async list() {
      let names: string[] = [];
      try {
        names = (await fs.readdir(dir)).filter((n) => n.endsWith(".md")).sort();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
      const docs: PrDocument[] = [];
      const broken: Array<{ file: string; error: string }> = [];
      for (const name of names) {
        try {
          const doc = await read(name.slice(0, -3));
          if (doc) docs.push(doc);
        } catch (error) {
          broken.push({ file: path.join(dir, name), error: error instanceof Error ? error.message : String(error) });
        }
      }
      docs.sort((a, b) => a.data.created.localeCompare(b.data.created) || a.key.localeCompare(b.key));
      return { docs, broken };
    },
    read,
    create: (doc) =>
      withFileLock(fileOf(doc.key), async () => {
        if ((await readTextIfExists(fileOf(doc.key))) !== undefined) return false;
        await writeFileAtomic(fileOf(doc.key), render(doc), 0o600);
        return true;
      }),
    update: (key, change) =>
      withFileLock(fileOf(key), async () => {
        const current = await read(key);
        if (!current) return undefined;
        const next = change(current);
        if (!next) return current;
        await writeFileAtomic(fileOf(key), render(next), 0o600);
        return next;
      }),
    remove: (key) =>
      withFileLock(fileOf(key), async () => {
        const existed = (await readTextIfExists(fileOf(key))) !== undefined;
        await fs.rm(fileOf(key), { force: true });
        await fs.rm(cacheOf(key), { force: true });
        return existed;
      }),
    async loadCache(key) {
      const file = cacheOf(key);
      let entries: Record<string, CachedResponse> = {};
      try {
        const parsed = JSON.parse((await readTextIfExists(file)) ?? "{}") as Partial<CacheFile>;
        if (parsed.version === CACHE_VERSION && parsed.entries) entries = parsed.entries;
      } catch {
        // A broken cache costs one full poll, nothing more.
      }
      let dirty = false;
      return {
        get: (k) => entries[k],
        set: (k, value) => {
          entries[k] = value;
          dirty = true;
        },
        async save() {
          if (!dirty) return;
          await fs.mkdir(path.dirname(file), { recursive: true });
          const content: CacheFile = { version: CACHE_VERSION, entries };
          await writeFileAtomic(file, JSON.stringify(content), 0o600);
          dirty = false;
        },
      };
    },
  };
}
