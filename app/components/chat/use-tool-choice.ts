import { useSubmit } from "@remix-run/react";
import { useState } from "react";
import type { ChatSession } from "./chat-sessions";

/**
 * This chat's own choice of tools (the composer's tools menu): the ids
 * switched off, what the next request sends (app/components/chat/chat-sessions.ts),
 * and, once the conversation is stored, kept on it at once, one tool at a
 * time. A chat not stored yet (new, or temporary on /nuvara) keeps its choice
 * with its messages: the server stores what each request carries.
 */
export function useToolChoice(session: ChatSession, chatId: string, isNew: boolean) {
  const submit = useSubmit();
  const [off, setOff] = useState<ReadonlySet<string>>(() => new Set(session.settings.toolsOff));

  function setTool(id: string, on: boolean) {
    const next = new Set(off);
    if (on) next.delete(id);
    else next.add(id);
    setOff(next);
    session.settings.toolsOff = [...next];
    if (isNew) return;
    // One fetcher per tool: a change to another tool does not cancel this one on its way.
    submit(
      { intent: "tool", tool: id, enabled: on ? "on" : "off" },
      { method: "post", action: `/nuvara/${chatId}`, navigate: false, fetcherKey: `chat-tool:${chatId}:${id}` },
    );
  }

  return { off, setTool };
}
