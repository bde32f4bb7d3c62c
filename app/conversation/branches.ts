/**
 * A conversation's messages form a tree (docs/decisions/069): an edit is a
 * new sibling of the user's message, a regenerated reply a new sibling of the
 * reply. What is shown, sent to the model, exported and shared is one branch:
 * the path from a root to the leaf shown. Shared by server and browser; the
 * nodes come in stored order (seq), so among siblings the latest is the last.
 */

export interface TreeNode {
  id: string;
  parentId: string | null;
}

/** The branch ending at `leafId`, root first; the latest message's branch when it is unknown. */
export function branchPath<T extends TreeNode>(nodes: readonly T[], leafId: string | null | undefined): T[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const path: T[] = [];
  let node: T | undefined = (leafId ? byId.get(leafId) : undefined) ?? nodes.at(-1);
  // Bounded by the node count: a cycle (never stored, but cheap to rule out) cannot loop.
  while (node && path.length < nodes.length) {
    path.push(node);
    node = node.parentId ? byId.get(node.parentId) : undefined;
  }
  return path.reverse();
}

/** The deepest message under `id`, following the most recent child at each step. */
export function latestLeaf(nodes: readonly TreeNode[], id: string): string {
  const latestChild = new Map<string, string>();
  for (const node of nodes) if (node.parentId) latestChild.set(node.parentId, node.id);
  let leaf = id;
  for (let steps = 0; latestChild.has(leaf) && steps < nodes.length; steps += 1) leaf = latestChild.get(leaf)!;
  return leaf;
}

/** The versions of a message: its siblings (same parent) in stored order, itself included. */
export function versionsOf(nodes: readonly TreeNode[], id: string): string[] {
  const self = nodes.find((node) => node.id === id);
  if (!self) return [id];
  return nodes.filter((node) => node.parentId === self.parentId).map((node) => node.id);
}
