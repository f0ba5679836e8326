import type { GitResult as RepoGitResult } from "../workspace/index.ts";

/**
 * Plain data produced by the codebase analysis. Nothing here holds functions or handles, so a
 * summary can be cached as JSON and rendered later. These are interfaces rather than zod
 * schemas because otto only produces them, never parses them from outside.
 */

export type Ecosystem = "npm" | "go" | "pypi" | "cargo" | "maven";

export interface Dependency {
  /** npm/crate/module name; PyPI names normalised (lowercase, `-`); Maven as `groupId:artifactId`. */
  name: string;
  /** As written in the manifest (`^4.19.2`, `v1.9.1`, `>=2.0`), when there is one. */
  version?: string;
  ecosystem: Ecosystem;
  /** Development/test only (devDependencies, test scope, dev groups). */
  dev: boolean;
  /** Go `// indirect` requirements. */
  indirect?: boolean;
  /** Repo-relative path of the manifest that declares it. */
  manifest: string;
}

export type ManifestKind = "package.json" | "go.mod" | "pyproject.toml" | "requirements.txt" | "Cargo.toml" | "pom.xml" | "build.gradle";

export interface Manifest {
  path: string;
  kind: ManifestKind;
  /** Package, module, crate or artifact name. */
  name?: string;
  /** Language/toolchain requirement, e.g. `go 1.22`, `node >=20`, `python >=3.11`, `edition 2021`. */
  toolchain?: string;
  dependencies: Dependency[];
  /** package.json scripts. */
  scripts?: Record<string, string>;
  /** package.json `type` ("module" | "commonjs"). */
  moduleType?: string;
  /** npm/Cargo workspaces or go.work members, as written. */
  workspaces?: string[];
  /** Declares executables: package.json `bin`, `[project.scripts]`, Cargo `[[bin]]`. */
  bin?: boolean;
  /** Facts other detectors use, e.g. `pytest-config`, `cargo-lib`. */
  facts?: string[];
}

/** One detected thing (a framework, a library, a practice) and why we believe it. */
export interface Finding {
  name: string;
  evidence: string[];
}

export type ArchetypeKind =
  "rest-api" | "grpc-service" | "k8s-operator" | "cli" | "event-driven" | "frontend-app" | "library" | "hybrid" | "unknown";

export interface ArchetypeMatch extends Finding {
  kind: Exclude<ArchetypeKind, "hybrid" | "unknown">;
}

export interface Archetype {
  /** `hybrid` when several kinds match; `library` when only manifests do; `unknown` otherwise. */
  kind: ArchetypeKind;
  matches: ArchetypeMatch[];
}

export interface Conventions {
  testing: Finding[];
  logging: Finding[];
  metrics: Finding[];
  tracing: Finding[];
  config: Finding[];
  validation: Finding[];
  errors: Finding[];
  di: Finding[];
}

export interface Layout {
  /** Top-level directories by file count; files at the root count as `.`. */
  topLevel: { path: string; files: number }[];
  /** README, Makefile, Dockerfile, CI configs, docs/… as short labels. */
  notable: string[];
  /** Directories that hold their own manifest (monorepo packages, services). */
  packages: { path: string; kinds: ManifestKind[] }[];
}

export interface CodebaseSummary {
  /** Absolute path analysed. Not rendered, so rendered text is machine-independent. */
  root: string;
  /** No files at all: callers skip the codebase section. */
  empty: boolean;
  files: { total: number; listedBy: "git" | "walk"; truncated: boolean };
  languages: { name: string; files: number }[];
  manifests: Manifest[];
  /** A capped list, direct runtime dependencies and recognised libraries first. */
  keyDependencies: Dependency[];
  archetype: Archetype;
  conventions: Conventions;
  layout: Layout;
  sample: { files: number; bytes: number };
  /** Caveats worth showing: truncation, time budget, unreadable manifests. */
  notes: string[];
}

export interface AnalyzeOptions {
  /** Stop listing after this many files (default 20 000). */
  maxFiles?: number;
  /** Read at most this many bytes of any file (default 64 KiB). */
  maxBytesPerFile?: number;
  /** Soft wall-clock budget for the whole analysis (default 3000 ms). */
  timeBudgetMs?: number;
  /** Source files read for convention detection (default 200). */
  maxSampleFiles?: number;
  /** Injected for tests; defaults to `Date.now`. */
  now?: () => number;
  /** Injected for tests; defaults to a runner over the `git` binary. */
  git?: GitRunner;
}

/** The git runner's result (src/repo is otto's one git runner). */
export type GitResult = RepoGitResult;

export type GitRunner = (args: string[], options: { cwd: string; timeoutMs: number }) => Promise<GitResult>;

/** How often a content pattern was seen in the sampled files, and where. */
export type Signals = Map<string, SignalHit>;

export interface SignalHit {
  count: number;
  files: string[];
  /** Captured identifiers, e.g. custom error class names. */
  names: string[];
}
