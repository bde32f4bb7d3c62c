import { useRouteLoaderData } from "@remix-run/react";
import type { chatLayoutPage } from "~/chat/chat-pages.server";

/** The /nuvara layout's data (models, quota, instructions, tool names), for the chat routes inside it. */
export function useAssistantData() {
  const data = useRouteLoaderData<typeof chatLayoutPage>("routes/nuvara");
  if (!data) throw new Error("useAssistantData is for routes inside /nuvara");
  return data;
}
