/** `.spec-review/config.yaml` `types:` by path or glob, one reading for lint, serve, the Action and the App. */
import { describe, expect, it } from "vitest";
import { classifyMarkdown } from "../../../core/bundle/discover.js";
import { classifyWithTypes, configTypes, typesMap } from "../../../core/bundle/types-map.js";

describe("typesMap", () => {
  const typeOf = typesMap(
    configTypes(`# spec-review
types:
  "proposals/*.md": swift-proposal
  "proposals/**/*.md": rfc
  proposals/0042-legacy.md: adr
  ./keps/sig-node/README.md: kep
  "docs/adr/*.md": nygard
  bad: 12
`),
  );
  it("answers an exact path before any glob, and a longer glob before a shorter one", () => {
    expect(typeOf("proposals/0042-legacy.md")).toBe("adr");
    expect(typeOf("proposals/0001-async.md")).toBe("rfc"); // "proposals/**/*.md" is longer
    expect(typeOf("proposals/drafts/0009.md")).toBe("rfc");
    expect(typeOf("keps/sig-node/README.md")).toBe("kep");
    expect(typeOf("docs/adr/0001-record.md")).toBe("nygard");
    expect(typeOf("docs/adr/sub/0001.md")).toBeUndefined(); // `*` stays in its folder
    expect(typeOf("bad")).toBeUndefined();
  });

  it("leaves a type the frontmatter names, and a broken frontmatter, to the file", () => {
    const t = typesMap({ "**/*.md": "madr" });
    expect(classifyWithTypes(classifyMarkdown("# No frontmatter\n"), t, "a/b.md")).toEqual({ type: "madr" });
    expect(classifyWithTypes(classifyMarkdown("---\ntype: prd\n---\n# P\n"), t, "a/b.md").type).toBe("prd");
    expect(classifyWithTypes(classifyMarkdown("---\ntitle: [x\n---\n"), t, "a/b.md").error).toBeDefined();
  });
});
