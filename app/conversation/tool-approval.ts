/**
 * Approval before a server's tool acts (docs/decisions/091), shared by the
 * server and the page: the policies, how they combine, and what a reply's
 * approval card shows.
 *
 * - `ask`: every call waits for a person (Approve, Deny, or Allow for this chat);
 * - `once`: the first call in a chat waits; once approved, the chat allows the tool;
 * - `auto`: calls run without asking.
 */

export const APPROVAL_POLICIES = ["ask", "once", "auto"] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

const STRICTNESS: Record<ApprovalPolicy, number> = { ask: 2, once: 1, auto: 0 };

export function isApprovalPolicy(value: unknown): value is ApprovalPolicy {
  return typeof value === "string" && (APPROVAL_POLICIES as readonly string[]).includes(value);
}

export const POLICY_LABELS: Record<ApprovalPolicy, string> = {
  ask: "Ask every time",
  once: "Ask once per chat",
  auto: "Run without asking",
};

/** From the tool's own hints: a tool that only reads runs; anything that may change things asks. */
export function defaultPolicy(tool: { readOnly?: boolean }): ApprovalPolicy {
  return tool.readOnly ? "auto" : "ask";
}

/** The admin's setting is the loosest allowed; a user's choice counts only where it is stricter. */
export function effectivePolicy(adminMaximum: ApprovalPolicy, userChoice: ApprovalPolicy | null): ApprovalPolicy {
  if (userChoice === null) return adminMaximum;
  return STRICTNESS[userChoice] > STRICTNESS[adminMaximum] ? userChoice : adminMaximum;
}

/** The choices a user has under the admin's maximum (the maximum itself and everything stricter). */
export function policiesWithin(adminMaximum: ApprovalPolicy): ApprovalPolicy[] {
  return APPROVAL_POLICIES.filter((policy) => STRICTNESS[policy] >= STRICTNESS[adminMaximum]);
}

export type ApprovalStatus = "pending" | "approved" | "denied" | "expired" | "cancelled";

export type ApprovalDecision = "approve" | "deny" | "allow-chat";

/** A running tool's last progress report, as a `data-tool-progress` part keyed by the call's id. */
export interface ToolProgressView {
  toolCallId: string;
  progress: number;
  /** When the server knows how much there is in all. */
  total?: number;
  /** The server's own words for the step it is at, shown as text. */
  message?: string;
}

/** A reply's approval card, as a `data-approval` part keyed by its id (updated in place when decided). */
export interface ToolApprovalView {
  approvalId: string;
  /** The reply's tool step it belongs to. */
  toolCallId: string;
  server: string;
  tool: string;
  /** The arguments the model chose, shown as text (never as HTML). */
  arguments: unknown;
  status: ApprovalStatus;
  /** ISO time after which an undecided call is denied. */
  expiresAt: string;
  /** The decision also allowed the tool for the rest of the chat. */
  allowedForChat?: boolean;
}
