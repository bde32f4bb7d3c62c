import type { ApprovalPolicy } from "~/conversation/tool-approval";

/** An MCP server and its tools as the Tools area shows them (client-safe; docs/decisions/090). */

export interface ServerToolView {
  name: string;
  title?: string;
  description: string;
  readOnly?: boolean;
  destructive?: boolean;
  /** The user's own switch. */
  enabled: boolean;
  /** When the tool asks first for this user (docs/decisions/091), and the loosest the admin allows. */
  approval: ApprovalPolicy;
  adminApproval: ApprovalPolicy;
  /** Admins: the roles the tool is narrowed to; null: it follows the server. */
  roles?: string[] | null;
}

export interface ServerView {
  id: string;
  name: string;
  url: string;
  /** Admins only: how requests are signed ("none", "oauth", or the header's name; its value is never sent to a page). */
  auth?: string;
  /** A server each user signs in to (docs/decisions/092): this user's state with it. */
  connection?: "connect" | "connected" | "reconnect";
  roles?: string[];
  /** Admins' list of users' own servers (docs/decisions/094): whose it is, by email. */
  owner?: string;
  lastError?: string | null;
  listedAt?: string | null;
  tools: ServerToolView[];
}

/** One recorded call, as the admins' record on the Tools area shows it (docs/decisions/091). */
export interface ToolCallView {
  id: string;
  at: string;
  who: string;
  server: string;
  tool: string;
  /** The arguments as compact JSON, cut for the table. */
  arguments: string;
  status: string;
  decidedBy: string | null;
  outcome: string | null;
  durationMs: number | null;
}
