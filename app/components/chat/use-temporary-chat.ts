import { useEffect } from "react";
import { forgetChat } from "./chat-sessions";

/** The query that opens a new temporary chat: /nuvara?temporary=1 (docs/decisions/085). */
export const TEMPORARY_PARAM = "temporary";

export function isTemporaryUrl(search: string): boolean {
  return new URLSearchParams(search).get(TEMPORARY_PARAM) === "1";
}

/**
 * A temporary chat is deleted when its page is left: another page of the
 * app (the view unmounts) or the tab closed or reloaded (pagehide). The
 * request is kept alive past the page; one that never arrives is made up
 * for by the server's sweep (app/chat/temporary-chats.server.ts).
 */
export function useLeaveTemporaryChat(chatId: string, temporary: boolean) {
  useEffect(() => {
    if (!temporary) return;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      leaveTemporaryChat(chatId);
    };
    window.addEventListener("pagehide", leave);
    return () => {
      window.removeEventListener("pagehide", leave);
      leave();
    };
  }, [chatId, temporary]);
}

function leaveTemporaryChat(id: string) {
  forgetChat(id); // a reply still being written stops
  const body = new URLSearchParams({ intent: "leave" });
  // The route's action answers as data (`_data`), not as a page.
  void fetch(`/nuvara/${id}?_data=${encodeURIComponent("routes/nuvara.$conversationId")}`, {
    method: "POST",
    body,
    keepalive: true,
  }).catch(() => undefined);
}
