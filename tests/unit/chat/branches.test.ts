import { describe, expect, it } from "vitest";
import { branchPath, latestLeaf, versionsOf } from "~/conversation/branches";

// u1 ─ a1 ─ u2 ─ a2          (u2 edited into u2b; a2b regenerated into a2c)
//         └ u2b ─ a2b
//               └ a2c ─ u3 ─ a3
const nodes = [
  { id: "u1", parentId: null },
  { id: "a1", parentId: "u1" },
  { id: "u2", parentId: "a1" },
  { id: "a2", parentId: "u2" },
  { id: "u2b", parentId: "a1" },
  { id: "a2b", parentId: "u2b" },
  { id: "a2c", parentId: "u2b" },
  { id: "u3", parentId: "a2c" },
  { id: "a3", parentId: "u3" },
];
const ids = (path: Array<{ id: string }>) => path.map((node) => node.id);

describe("the message tree", () => {
  it("a branch is the path from the root to its leaf; an unknown leaf means the latest message's", () => {
    expect(ids(branchPath(nodes, "a2"))).toEqual(["u1", "a1", "u2", "a2"]);
    expect(ids(branchPath(nodes, "a2b"))).toEqual(["u1", "a1", "u2b", "a2b"]);
    expect(ids(branchPath(nodes, null))).toEqual(["u1", "a1", "u2b", "a2c", "u3", "a3"]);
    expect(ids(branchPath(nodes, "gone"))).toEqual(["u1", "a1", "u2b", "a2c", "u3", "a3"]);
    expect(branchPath([], null)).toEqual([]);
  });

  it("a version opens at its deepest message, following the latest child", () => {
    expect(latestLeaf(nodes, "u2")).toBe("a2");
    expect(latestLeaf(nodes, "u2b")).toBe("a3");
    expect(latestLeaf(nodes, "a2b")).toBe("a2b");
    expect(latestLeaf(nodes, "u1")).toBe("a3");
  });

  it("the versions of a message are its siblings in stored order", () => {
    expect(versionsOf(nodes, "u2b")).toEqual(["u2", "u2b"]);
    expect(versionsOf(nodes, "a2c")).toEqual(["a2b", "a2c"]);
    expect(versionsOf(nodes, "u1")).toEqual(["u1"]);
    expect(versionsOf(nodes, "unknown")).toEqual(["unknown"]);
  });

  it("a cycle (never stored) cannot hang the page", () => {
    const cycle = [
      { id: "x", parentId: "y" },
      { id: "y", parentId: "x" },
    ];
    expect(branchPath(cycle, "x")).toHaveLength(2);
    expect(["x", "y"]).toContain(latestLeaf(cycle, "x"));
  });
});
