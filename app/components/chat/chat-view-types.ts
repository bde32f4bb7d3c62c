import type { BudgetView } from "~/budgets/budget-text";
import type { ChatMessage } from "~/conversation/message-types";

export interface ModelChoice {
  id: string;
  label: string;
  demo: boolean;
  /** Takes images (LLM_VISION_MODELS). */
  vision?: boolean;
}

export interface QuotaView {
  limit: number | null;
  remaining: number | null;
  resetsAt: string;
  /** The tightest budget (docs/decisions/072); null: the role has none. */
  budget?: BudgetView | null;
  /** Where a user who hit a limit can get more (the pricing page), when plans are on offer. */
  upgradeUrl?: string | null;
}

export interface ChatViewProps {
  /** The conversation's id (for a new chat, the one it will be created with). */
  chatId: string;
  /** Not on the server yet: the first send creates it. */
  isNew: boolean;
  title: string | null;
  /** Every stored version (the message tree, each knowing its parent); the branch to `leafId` is shown. */
  initialMessages: ChatMessage[];
  /** The last message of the branch shown (docs/decisions/069). */
  leafId?: string | null;
  models: ModelChoice[];
  /** The conversation's model; the first allowed model when unset or no longer allowed. */
  model: string | null;
  quota: QuotaView;
  /** Instructions in effect for this conversation, shown so the user knows. */
  customInstructions: string | null;
  toolInstructions: boolean;
  /** A new chat opened from a prompt tool (/nuvara?tool=<id>): named in the header, with the way out; no starters. */
  tool?: { id: string; name: string } | null;
  toolNames: Record<string, string>;
  /** The project the chat is in, or a new chat is started in (docs/decisions/106): named in the header. */
  project?: { id: string; name: string } | null;
  /** The tools switched off for this chat only (the composer's tools menu); none for a new chat. */
  toolsOff?: string[];
  /** The owner's 👍/👎 by reply id. */
  feedback?: Record<string, 1 | -1>;
  /** A reply being written for this conversation, possibly by another tab or device (docs/decisions/070). */
  running?: RunningReply | null;
  /**
   * A temporary chat (docs/decisions/085): marked while open, never listed,
   * and deleted when its page is left.
   */
  temporary?: boolean;
  /** The new-chat page: the header offers the switch between an ordinary and a temporary chat. */
  temporarySwitch?: boolean;
  /** Where the composer's text and attached files are kept (app/components/chat/drafts.ts, app/components/chat/attachment-uploads.ts): "new" on /nuvara, otherwise the conversation's id. */
  draftKey?: string;
}

export interface RunningReply {
  runId: string;
  userMessage: { id: string; text: string; kind: "submit" | "regenerate"; parentId?: string | null };
}
