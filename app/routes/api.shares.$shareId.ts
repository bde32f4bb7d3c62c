import type { ActionFunctionArgs } from "@remix-run/node";
import { revokeShareLink } from "~/chat/share-pages.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";

/** POST /api/shares/<id> intent=revoke: the link stops working at once. */
export const action = apiRoute(({ request, params }: ActionFunctionArgs) => revokeShareLink(request, params.shareId));

// Without a loader Remix would answer GET itself, without the API headers.
export const loader = apiRoute(() => methodNotAllowed("POST"));
