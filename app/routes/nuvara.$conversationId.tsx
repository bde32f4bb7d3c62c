import { json, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { changeConversation, loadConversation } from "~/chat/chat-pages.server";
import type { ChatMessage } from "~/conversation/message-types";
import { useAssistantData } from "~/components/chat/assistant-data";
import { ChatView } from "~/components/chat/chat-view";
import { useLiveTitle } from "~/components/chat/live-titles";
import { AppErrorBoundary } from "~/components/error-boundary";

/** /nuvara/<id>: one of the user's conversations (another user's is a 404). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return json(await loadConversation(request, params.conversationId), {
    headers: { "Cache-Control": "private, no-store" },
  });
}

export function action({ request, params }: ActionFunctionArgs) {
  return changeConversation(request, params.conversationId);
}

export default function ConversationPage() {
  const { conversation, messages, feedback, isNew, running } = useLoaderData<typeof loader>();
  const data = useAssistantData();
  const title = useLiveTitle(conversation.id, conversation.title);
  const projectId = data.conversations.find((item) => item.id === conversation.id)?.projectId;
  const project = projectId ? (data.projects.find((item) => item.id === projectId) ?? null) : null;
  return (
    <ChatView
      key={conversation.id}
      chatId={conversation.id}
      // A new chat whose first reply is still being written is stored only with it.
      isNew={isNew}
      title={title}
      temporary={conversation.temporary}
      // Serialized from ChatMessage objects: the JSON round trip keeps their shape.
      initialMessages={messages as unknown as ChatMessage[]}
      leafId={conversation.leafId}
      models={data.models}
      model={conversation.model}
      quota={data.quota}
      customInstructions={conversation.customInstructions}
      toolInstructions={conversation.hasToolInstructions}
      toolNames={data.toolNames}
      project={project}
      toolsOff={conversation.toolsOff}
      feedback={feedback}
      running={running}
    />
  );
}

export const ErrorBoundary = AppErrorBoundary;
