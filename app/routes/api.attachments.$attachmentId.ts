import { json, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { downloadAttachment, removeUnsentAttachment } from "~/attachments/upload.server";
import { apiRoute } from "~/http/api-route.server";

/** GET: the file, to its owner; DELETE: a file not sent yet (app/attachments/upload.server.ts). */
export const loader = apiRoute(({ request, params }: LoaderFunctionArgs) =>
  downloadAttachment(request, params.attachmentId),
);

export const action = apiRoute(({ request, params }: ActionFunctionArgs) => {
  if (request.method !== "DELETE")
    return json({ error: "Use GET or DELETE." }, { status: 405, headers: { Allow: "GET, DELETE" } });
  return removeUnsentAttachment(request, params.attachmentId);
});
