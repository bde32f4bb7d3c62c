import type { ChatMessage } from "~/conversation/message-types";

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

/** One tool call in a reply, collapsed to a line that can be opened to see its input and result. */
export function ToolStep({ part, toolNames }: { part: ToolPart; toolNames: Record<string, string> }) {
  const name = toolNames[toolId(part)] ?? toolId(part);
  const summary =
    part.state === "output-available"
      ? `Used ${name}`
      : part.state === "output-error"
        ? `${name} failed`
        : `Using ${name}…`;
  const output =
    part.state === "output-available" ? pretty(part.output) : part.state === "output-error" ? part.errorText : null;
  return (
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
  );
}
