import type { ImportedMessage } from "./normalized.server";

/**
 * An export's messages as a tree (docs/decisions/104): each names its parent;
 * some are not kept (system prompts, tools, empty ones), and a kept message
 * then follows its nearest kept ancestor. The tree is checked before it is
 * trusted: a parent chain that loops, or an id used twice, refuses the
 * conversation (a broken or crafted file).
 */

export interface RawNode {
  id: string;
  /** As the export says; one it does not hold counts as none. */
  parentId: string | null;
  /** Null: not kept (its children move up to its nearest kept ancestor). */
  message: ImportedMessage | null;
}

export type OrderedTree =
  { ok: true; messages: ImportedMessage[]; currentLeafId: string | null } | { ok: false; reason: string };

export function orderTree(nodes: readonly RawNode[], currentId: string | null): OrderedTree {
  const byId = new Map<string, RawNode>();
  for (const node of nodes) {
    if (byId.has(node.id)) return { ok: false, reason: "two of its messages have the same id" };
    byId.set(node.id, node);
  }
  const parentOf = (node: RawNode) => (node.parentId !== null ? byId.get(node.parentId) : undefined);
  if (loops(nodes, parentOf)) return { ok: false, reason: "its messages' parents form a loop" };

  // Siblings in the order they were written; ties (or no times) keep the export's order.
  const position = new Map(nodes.map((node, index) => [node.id, index]));
  const children = new Map<string | null, RawNode[]>();
  for (const node of nodes) {
    const key = parentOf(node)?.id ?? null;
    const list = children.get(key) ?? [];
    list.push(node);
    children.set(key, list);
  }
  const time = (node: RawNode) => (node.message?.createdAt ? Date.parse(node.message.createdAt) : NaN);
  for (const list of children.values())
    list.sort((a, b) => {
      const [ta, tb] = [time(a), time(b)];
      if (!Number.isNaN(ta) && !Number.isNaN(tb) && ta !== tb) return ta - tb;
      return position.get(a.id)! - position.get(b.id)!;
    });

  // Depth first, parents before children, each kept message under its nearest kept ancestor.
  const messages: ImportedMessage[] = [];
  const stack: Array<{ node: RawNode; keptParent: string | null }> = (children.get(null) ?? [])
    .map((node) => ({ node, keptParent: null }))
    .reverse();
  while (stack.length > 0) {
    const { node, keptParent } = stack.pop()!;
    let under = keptParent;
    if (node.message) {
      messages.push({ ...node.message, id: node.id, parentId: keptParent });
      under = node.id;
    }
    const below = children.get(node.id) ?? [];
    for (let i = below.length - 1; i >= 0; i -= 1) stack.push({ node: below[i], keptParent: under });
  }

  return { ok: true, messages, currentLeafId: nearestKept(currentId, byId, parentOf) };
}

/** Whether following parents from some node comes back to a node on the same walk. */
function loops(nodes: readonly RawNode[], parentOf: (node: RawNode) => RawNode | undefined): boolean {
  const done = new Set<string>();
  for (const start of nodes) {
    const walk = new Set<string>();
    let node: RawNode | undefined = start;
    while (node && !done.has(node.id)) {
      if (walk.has(node.id)) return true;
      walk.add(node.id);
      node = parentOf(node);
    }
    for (const id of walk) done.add(id);
  }
  return false;
}

function nearestKept(
  id: string | null,
  byId: Map<string, RawNode>,
  parentOf: (node: RawNode) => RawNode | undefined,
): string | null {
  let node = id !== null ? byId.get(id) : undefined;
  while (node && !node.message) node = parentOf(node);
  return node?.id ?? null;
}
