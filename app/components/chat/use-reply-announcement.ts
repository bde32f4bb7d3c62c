import { useEffect, useRef, useState } from "react";
import type { ChatMessage } from "~/conversation/message-types";
import { messageText } from "~/conversation/message-types";
import { finishedAnnouncement } from "./starter-suggestions";

/**
 * Announcements just made, by chat id: a new chat's first reply may finish
 * while the page moves to the conversation's own URL, where a new view picks
 * the announcement up instead of losing it.
 */
const recent = new Map<string, { text: string; at: number }>();
const CARRY_OVER_MS = 5_000;

/**
 * The text of the polite live region: set once when a reply stops streaming
 * (not on every token, which would make a screen reader read the reply twice).
 */
export function useReplyAnnouncement(chatId: string, status: string, messages: ChatMessage[], failed: boolean): string {
  const [announcement, setAnnouncement] = useState(() => {
    const carried = recent.get(chatId);
    return carried && Date.now() - carried.at < CARRY_OVER_MS ? carried.text : "";
  });
  const wasBusy = useRef(false);
  useEffect(() => {
    const busy = status === "submitted" || status === "streaming";
    if (busy) {
      if (!wasBusy.current) setAnnouncement("");
      recent.delete(chatId);
      wasBusy.current = true;
      return;
    }
    if (!wasBusy.current) return;
    wasBusy.current = false;
    const last = messages[messages.length - 1];
    if (failed || last?.role !== "assistant") return;
    const text = last.metadata?.status === "stopped" ? "Reply stopped." : finishedAnnouncement(messageText(last));
    recent.set(chatId, { text, at: Date.now() });
    setAnnouncement(text);
  }, [chatId, status, messages, failed]);
  return announcement;
}
