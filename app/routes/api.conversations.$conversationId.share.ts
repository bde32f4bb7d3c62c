import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { conversationShares, shareConversation } from "~/chat/share-pages.server";
import { apiRoute } from "~/http/api-route.server";

/** GET: the conversation's open share links; POST intent=create: a new one (ADR 054, docs/features.md). */
export const loader = apiRoute(({ request, params }: LoaderFunctionArgs) =>
  conversationShares(request, params.conversationId),
);

export const action = apiRoute(({ request, params }: ActionFunctionArgs) =>
  shareConversation(request, params.conversationId),
);
