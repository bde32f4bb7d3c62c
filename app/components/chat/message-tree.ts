import { branchPath } from "~/conversation/branches";
import type { ChatMessage } from "~/conversation/message-types";

/** A conversation's messages as a tree (docs/decisions/069): each knows the one it follows. */
type Node = { id: string; parentId: string | null };

function nodeOf(message: ChatMessage): Node {
  return { id: message.id, parentId: message.metadata?.parentId ?? null };
}

/** The stored branch to `leafId`. */
export function storedBranch(stored: ChatMessage[], leafId: string | null | undefined): ChatMessage[] {
  if (stored.length === 0) return stored;
  const byId = new Map(stored.map((message) => [message.id, message]));
  return branchPath(stored.map(nodeOf), leafId).map((node) => byId.get(node.id)!);
}

/**
 * The stored tree with what this tab shows beyond it (a message being
 * answered, a reply streaming), each following the one shown before it.
 */
export function messageTree(stored: ChatMessage[], shown: ChatMessage[]) {
  const byId = new Map(stored.map((message) => [message.id, message]));
  const nodes = stored.map(nodeOf);
  shown.forEach((message, index) => {
    if (!byId.has(message.id)) nodes.push({ id: message.id, parentId: shown[index - 1]?.id ?? null });
    byId.set(message.id, message);
  });
  return { nodes, byId };
}
