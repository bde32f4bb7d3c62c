import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { importStatus, uploadImport } from "~/chat/import-endpoint.server";
import { apiRoute, methodNotAllowed } from "~/http/api-route.server";

/** POST /api/imports: an export to import, the file as the body; GET: the latest import's progress (app/chat/import-endpoint.server.ts). */
export const action = apiRoute(({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return methodNotAllowed("POST");
  return uploadImport(request);
});

export const loader = apiRoute(({ request }: LoaderFunctionArgs) => importStatus(request));
