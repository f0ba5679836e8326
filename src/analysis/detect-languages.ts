/** Extension → language. Only code and markup count; data and docs (JSON, YAML, Markdown) do not. */
const LANGUAGES: Record<string, string> = {
  ts: "TypeScript",
  tsx: "TypeScript",
  mts: "TypeScript",
  cts: "TypeScript",
  js: "JavaScript",
  jsx: "JavaScript",
  mjs: "JavaScript",
  cjs: "JavaScript",
  go: "Go",
  py: "Python",
  pyi: "Python",
  rs: "Rust",
  java: "Java",
  kt: "Kotlin",
  kts: "Kotlin",
  scala: "Scala",
  groovy: "Groovy",
  gradle: "Groovy",
  cs: "C#",
  fs: "F#",
  c: "C",
  h: "C",
  cc: "C++",
  cpp: "C++",
  cxx: "C++",
  hpp: "C++",
  hh: "C++",
  rb: "Ruby",
  php: "PHP",
  swift: "Swift",
  m: "Objective-C",
  dart: "Dart",
  ex: "Elixir",
  exs: "Elixir",
  erl: "Erlang",
  hs: "Haskell",
  clj: "Clojure",
  lua: "Lua",
  r: "R",
  jl: "Julia",
  zig: "Zig",
  sh: "Shell",
  bash: "Shell",
  zsh: "Shell",
  ps1: "PowerShell",
  proto: "Protocol Buffers",
  sql: "SQL",
  tf: "Terraform",
  vue: "Vue",
  svelte: "Svelte",
  astro: "Astro",
  html: "HTML",
  css: "CSS",
  scss: "SCSS",
  less: "Less",
};

/** Languages whose files are read when sampling sources for conventions. */
const SOURCE_LANGUAGES = new Set(["TypeScript", "JavaScript", "Go", "Python", "Rust", "Java", "Kotlin"]);

export function languageOf(path: string): string | undefined {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return undefined;
  return LANGUAGES[base.slice(dot + 1).toLowerCase()];
}

export function isSourceFile(path: string): boolean {
  const language = languageOf(path);
  return language !== undefined && SOURCE_LANGUAGES.has(language);
}

/** File counts per language, most files first; ties by name so output is stable. */
export function countLanguages(files: readonly string[]): { name: string; files: number }[] {
  const counts = new Map<string, number>();
  for (const file of files) {
    const language = languageOf(file);
    if (language) counts.set(language, (counts.get(language) ?? 0) + 1);
  }
  return [...counts].map(([name, count]) => ({ name, files: count })).sort((a, b) => b.files - a.files || a.name.localeCompare(b.name));
}
