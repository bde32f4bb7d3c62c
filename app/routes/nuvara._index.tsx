import { json, type LoaderFunctionArgs } from "@remix-run/node";
import { useLoaderData, useLocation, type ShouldRevalidateFunction } from "@remix-run/react";
import { useMemo } from "react";
import { requireUser } from "~/auth/session.server";
import { uuid } from "~/chat/uuid";
import { useAssistantData } from "~/components/chat/assistant-data";
import { ChatView } from "~/components/chat/chat-view";

/** /nuvara: a new chat. Its id is chosen here; the first message creates the conversation with it. */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return json({ newId: crypto.randomUUID() }, { headers: { "Cache-Control": "private, no-store" } });
}

// A fresh id comes with each visit (below), not with each revalidation.
export const shouldRevalidate: ShouldRevalidateFunction = () => false;

export default function NewChat() {
  const { newId } = useLoaderData<typeof loader>();
  const location = useLocation();
  // The first page load uses the server's id (same in both renders); every later visit to /nuvara, a new one.
  const chatId = useMemo(() => (location.key === "default" ? newId : uuid()), [location.key, newId]);
  const data = useAssistantData();
  return (
    <ChatView
      key={chatId}
      chatId={chatId}
      isNew
      title={null}
      initialMessages={[]}
      models={data.models}
      model={null}
      quota={data.quota}
      customInstructions={data.customInstructions || null}
      toolInstructions={false}
      toolNames={data.toolNames}
    />
  );
}
