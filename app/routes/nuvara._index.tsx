import { json, type LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData, useLocation, type ShouldRevalidateFunction } from "@remix-run/react";
import { useMemo } from "react";
import { requireUser } from "~/auth/session.server";
import { uuid } from "~/ids/uuid";
import { useAssistantData } from "~/components/chat/assistant-data";
import { ChatView } from "~/components/chat/chat-view";
import { useLiveTitle } from "~/components/chat/live-titles";
import { TOOL_PARAM } from "~/components/tools/chat-handoff";
import { isTemporaryUrl } from "~/components/chat/use-temporary-chat";
import { PROJECT_PARAM } from "~/components/chat/project-link";
import { getPromptTool } from "~/data/prompt-tools/prompt-tools.server";
import { toolStore } from "~/data/prompt-tools/prompt-tool-responses.server";

/**
 * /nuvara: a new chat. Its id is chosen here; the first message creates the
 * conversation with it. /nuvara?tool=<id>: a prompt tool's chat — the first
 * send carries the tool, whose instructions the conversation starts with.
 * /nuvara?project=<id>: a chat started in that project (docs/decisions/106).
 * /nuvara?temporary=1: a temporary chat, which keeps this address while open
 * and is deleted when left (docs/decisions/085).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  const toolId = new URL(request.url).searchParams.get(TOOL_PARAM);
  // Only to say that the tool's instructions apply; the chat endpoint checks the tool again on send.
  const tool = toolId ? await toolStore((db) => getPromptTool(db, toolId)) : null;
  return json(
    { newId: crypto.randomUUID(), tool: tool?.enabled ? { id: tool.id, name: tool.name } : null },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

// A fresh id comes with each visit (below), not with each revalidation; the tool, when it changes.
export const shouldRevalidate: ShouldRevalidateFunction = ({ currentUrl, nextUrl }) =>
  currentUrl.searchParams.get(TOOL_PARAM) !== nextUrl.searchParams.get(TOOL_PARAM);

export default function NewChat() {
  const { newId, tool } = useLoaderData<typeof loader>();
  const location = useLocation();
  // The first page load uses the server's id (same in both renders); every later visit to /nuvara, a new one.
  const chatId = useMemo(() => (location.key === "default" ? newId : uuid()), [location.key, newId]);
  const data = useAssistantData();
  const projectId = new URLSearchParams(location.search).get(PROJECT_PARAM);
  // A chat started in a project (docs/decisions/106) is never temporary: no switch for it.
  const project = projectId ? (data.projects.find((item) => item.id === projectId) ?? null) : null;
  const temporary = !projectId && isTemporaryUrl(location.search);
  // Once sent, the chat is listed: its title (the first line, then the generated one) heads it here too.
  const title = useLiveTitle(chatId, null);
  return (
    <ChatView
      key={chatId}
      chatId={chatId}
      isNew
      temporary={temporary}
      temporarySwitch={!projectId}
      project={project}
      draftKey="new"
      title={title}
      initialMessages={[]}
      models={data.models}
      model={null}
      quota={data.quota}
      customInstructions={data.customInstructions || null}
      toolInstructions={Boolean(tool)}
      tool={tool}
      toolNames={data.toolNames}
    />
  );
}
