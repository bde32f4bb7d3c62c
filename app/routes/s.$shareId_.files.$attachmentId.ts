import type { LoaderFunctionArgs } from "@remix-run/node";
import { sharedFile } from "~/chat/share-pages.server";

/** /s/<id>/files/<attachment id>: a file shown in a share link whose owner included files (docs/decisions/071). */
export function loader({ params }: LoaderFunctionArgs) {
  return sharedFile(params.shareId, params.attachmentId);
}
