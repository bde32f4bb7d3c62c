import type { ActionFunctionArgs } from "@remix-run/node";
import { uploadAttachment } from "~/attachments/upload.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";

/** POST /api/attachments, the file as the body and its name in X-File-Name (app/attachments/upload.server.ts). */
export const action = apiRoute(({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return methodNotAllowed("POST");
  return uploadAttachment(request);
});

export const loader = apiRoute(() => methodNotAllowed("POST"));
