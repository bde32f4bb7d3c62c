import type { ChatMessage } from "~/conversation/message-types";
import type { ToolApprovalView, ToolProgressView } from "~/conversation/tool-approval";
import type { ToolElicitationView } from "~/conversation/tool-elicitation";
import { ApprovalCard } from "./approval-card";
import { ElicitationCard } from "./elicitation-card";
import { MEMORY_TOOLS, toolSummary } from "./tool-summary";

/** Where the user sees, edits and deletes their memories (docs/decisions/103). */
export const MEMORY_PAGE = "/dashboard/memory";

type ToolPart = Extract<ChatMessage["parts"][number], { toolCallId: string }>;

export function isToolPart(part: ChatMessage["parts"][number]): part is ToolPart {
  return "toolCallId" in part;
}

function toolId(part: ToolPart): string {
  return part.type === "dynamic-tool" ? part.toolName : part.type.slice("tool-".length);
}

function pretty(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/** A server's tool answers text (with how it ended); a built-in tool answers an object, shown as JSON. */
function resultText(output: unknown): string {
  return isServerOutcome(output) ? output.text : pretty(output);
}

function isServerOutcome(output: unknown): output is { text: string; isError: boolean; truncated: boolean } {
  if (typeof output !== "object" || output === null) return false;
  const { text, isError, truncated } = output as Record<string, unknown>;
  return typeof text === "string" && typeof isError === "boolean" && typeof truncated === "boolean";
}

/** One tool call in a reply, collapsed to a line saying what it did, that opens to show its raw input and result. */
export function ToolStep({
  part,
  toolNames,
  approval,
  elicitation,
  progress,
}: {
  part: ToolPart;
  toolNames: Record<string, string>;
  /** The call's approval, when it needed one (docs/decisions/091). */
  approval?: ToolApprovalView;
  /** The server's latest request for the user's input during the call (docs/decisions/095). */
  elicitation?: ToolElicitationView;
  /** How far the server says the call has got, while it runs. */
  progress?: ToolProgressView;
}) {
  const id = toolId(part);
  const summary = toolSummary({
    id,
    // A server's tool carries its title (app/mcp/ai-tools.server.ts); the built-in ones are named by the page.
    name: toolNames[id] ?? ("title" in part && part.title ? part.title : id),
    state: part.state,
    input: part.input,
    output: part.state === "output-available" ? part.output : undefined,
  });
  // Memory's own tools: a line saying what was saved, and where to change it.
  if (part.type !== "dynamic-tool" && MEMORY_TOOLS.has(id)) {
    return (
      <p className="memory-note">
        <span>{summary}</span> <a href={MEMORY_PAGE}>Manage memories</a>
      </p>
    );
  }
  const output =
    part.state === "output-available" ? resultText(part.output) : part.state === "output-error" ? part.errorText : null;
  // Waiting for the user: the card is the step, open, until they answer.
  if (approval?.status === "pending") return <ApprovalCard approval={approval} />;
  if (elicitation?.status === "pending") {
    return (
      <>
        {approval ? <ApprovalCard approval={approval} /> : null}
        <ElicitationCard request={elicitation} />
      </>
    );
  }
  return (
    <>
      {approval ? <ApprovalCard approval={approval} /> : null}
      {elicitation ? <ElicitationCard request={elicitation} /> : null}
      <details className="tool-step">
        <summary>{summary}</summary>
        <dl>
          <dt>Input</dt>
          <dd>
            <pre>{pretty(part.input ?? {})}</pre>
          </dd>
          {output !== null ? (
            <>
              <dt>{part.state === "output-error" ? "Error" : "Result"}</dt>
              <dd>
                <pre>{output}</pre>
              </dd>
            </>
          ) : null}
        </dl>
      </details>
      {progress && isRunning(part) ? <ToolProgress progress={progress} /> : null}
    </>
  );
}

function isRunning(part: ToolPart): boolean {
  return part.state === "input-streaming" || part.state === "input-available";
}

/** A running call's progress, under its step (open or closed). */
function ToolProgress({ progress: { progress, total, message } }: { progress: ToolProgressView }) {
  const known = total !== undefined && total > 0;
  const counted = known ? `${Math.min(progress, total)} of ${total}` : `${progress} done`;
  return (
    <div className="tool-progress" role="status">
      {/* Without a total the bar cannot say how far: it only shows the call is alive. */}
      <progress
        max={known ? total : undefined}
        value={known ? Math.min(progress, total) : undefined}
        aria-label="Progress"
      />
      <span>{message ? `${message} · ${counted}` : counted}</span>
    </div>
  );
}
