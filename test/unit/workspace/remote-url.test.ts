import { describe, expect, it } from "vitest";
import { normalizeRemoteUrl, repositoryName, sameRepository } from "../../../src/workspace/index.ts";
import { repoUrlOfPr } from "../../../src/repo/index.ts";

describe("normalizeRemoteUrl", () => {
  const github = [
    "https://github.com/org/repo",
    "https://github.com/org/repo.git",
    "https://github.com/org/repo/",
    "HTTPS://GitHub.com/Org/Repo.git",
    "http://www.github.com/org/repo",
    "https://x-access-token:ghp_secret@github.com/org/repo.git",
    "ssh://git@github.com/org/repo.git",
    "ssh://git@github.com:22/org/repo",
    "git@github.com:org/repo.git",
    "git@GITHUB.COM:org/repo",
    "git://github.com/org/repo.git",
  ];
  it.each(github)("GitHub: %s", (url) => {
    expect(normalizeRemoteUrl(url)).toBe("github.com/org/repo");
  });

  it.each(["https://github.example.com/org/repo", "git@github.example.com:org/repo.git", "ssh://git@GitHub.Example.com:2222/org/repo.git"])(
    "GitHub Enterprise: %s",
    (url) => {
      expect(normalizeRemoteUrl(url)).toBe("github.example.com/org/repo");
    },
  );

  const ado = [
    "https://dev.azure.com/org/project/_git/repo",
    "https://org@dev.azure.com/org/project/_git/repo",
    "https://dev.azure.com/org/project/_git/repo.git",
    "https://DEV.AZURE.COM/Org/Project/_git/Repo",
    "git@ssh.dev.azure.com:v3/org/project/repo",
    "ssh://git@ssh.dev.azure.com/v3/org/project/repo",
    "org@vs-ssh.visualstudio.com:v3/org/project/repo",
    "https://org.visualstudio.com/project/_git/repo",
    "https://org.visualstudio.com/DefaultCollection/project/_git/repo",
  ];
  it.each(ado)("Azure DevOps: %s", (url) => {
    expect(normalizeRemoteUrl(url)).toBe("dev.azure.com/org/project/repo");
  });

  it("decodes Azure DevOps names with spaces in every form", () => {
    expect(normalizeRemoteUrl("https://dev.azure.com/org/My%20Project/_git/My%20Repo")).toBe("dev.azure.com/org/my project/my repo");
    expect(normalizeRemoteUrl("git@ssh.dev.azure.com:v3/org/My%20Project/My%20Repo")).toBe("dev.azure.com/org/my project/my repo");
  });

  it("expands the short form of a repository named like its project", () => {
    expect(normalizeRemoteUrl("https://dev.azure.com/org/_git/proj")).toBe("dev.azure.com/org/proj/proj");
    expect(normalizeRemoteUrl("https://org.visualstudio.com/_git/proj")).toBe("dev.azure.com/org/proj/proj");
  });

  it("keeps Azure DevOps Server (on premises) paths without _git", () => {
    expect(normalizeRemoteUrl("https://tfs.example.com/tfs/Collection/Project/_git/repo")).toBe(
      "tfs.example.com/tfs/collection/project/repo",
    );
  });

  it("treats local paths as file: URLs", () => {
    expect(normalizeRemoteUrl("/srv/git/repo.git")).toBe("file:/srv/git/repo");
    expect(normalizeRemoteUrl("file:///srv/git/repo.git")).toBe("file:/srv/git/repo");
  });

  it("rejects what is not a repository URL", () => {
    for (const url of ["", "   ", "repo", "https://github.com", "https://github.com/"]) expect(normalizeRemoteUrl(url)).toBeUndefined();
  });

  it("compares repositories and names them", () => {
    expect(sameRepository("git@github.com:Org/Repo.git", "https://github.com/org/repo")).toBe(true);
    expect(sameRepository("git@github.com:org/repo.git", "https://github.com/org/repo2")).toBe(false);
    expect(sameRepository("git@github.com:org/repo.git", "https://gitlab.com/org/repo")).toBe(false);
    expect(repositoryName("org@vs-ssh.visualstudio.com:v3/org/project/Service")).toBe("service");
    expect(repoUrlOfPr("https://github.com/org/repo/pull/42/files")).toBe("https://github.com/org/repo");
    expect(repoUrlOfPr("https://dev.azure.com/org/p/_git/r/pullrequest/7")).toBe("https://dev.azure.com/org/p/_git/r");
  });
});
