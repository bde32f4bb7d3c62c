import { useEffect, useState } from "react";
import { messageText } from "~/conversation/message-types";
import type { ChatSession } from "./chat-sessions";
import { unsent } from "./drafts";

/**
 * A message whose reply was never confirmed comes back into the composer after a reload.
 * Returns whether the notice saying so shows, and its setter (a send hides it).
 */
export function useUnsentRestore(
  unsentKey: string,
  session: ChatSession,
  draft: string,
  setDraft: (text: string) => void,
) {
  const [restoredNotice, setRestoredNotice] = useState(false);
  useEffect(() => {
    const text = unsent.read(unsentKey);
    if (!text) return;
    const chat = session.chat;
    const shown = chat.messages.some((message) => message.role === "user" && messageText(message) === text);
    if (shown) {
      // Loaded from the server: it was saved. Otherwise this tab still holds it (in flight, or with Retry).
      if (chat.status === "ready") unsent.clear(unsentKey);
      return;
    }
    unsent.clear(unsentKey);
    if (!draft) setDraft(text);
    setRestoredNotice(true);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per conversation shown
  }, [unsentKey]);
  return [restoredNotice, setRestoredNotice] as const;
}
