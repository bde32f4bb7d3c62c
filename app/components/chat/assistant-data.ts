import { useRouteLoaderData } from "@remix-run/react";
import type { loader } from "~/routes/nuvara";

/** The /nuvara layout's data (models, quota, instructions, tool names), for the chat routes inside it. */
export function useAssistantData() {
  const data = useRouteLoaderData<typeof loader>("routes/nuvara");
  if (!data) throw new Error("useAssistantData is for routes inside /nuvara");
  return data;
}
