import { json } from "@remix-run/node";
import { attachmentLimitsFor } from "~/attachments/limits.server";
import { fileName, headerFileName, unread } from "~/attachments/upload.server";
import { formatBytes } from "~/conversation/attachment-types";
import { logBackendFault } from "~/deadline.server";
import { apiDatabase, apiSignedIn } from "~/http/api-session.server";
import { readCapped } from "~/http/body-limit.server";
import { isAccountDeleted } from "~/data/account-lock.server";
import { hitRateLimit } from "~/data/rate-limits.server";
import {
  createImportJob,
  ensureImportWorker,
  hasUnfinishedImport,
  kickImportWorker,
  latestImport,
} from "~/data/import/import-jobs.server";
import { IMPORT_LIMITS } from "~/data/import/normalized.server";
import { ImportFileError, readExport } from "~/data/import/read-export.server";

/**
 * POST /api/imports: an export's bytes as the body, its name in X-File-Name
 * (percent-encoded, as for attachments). The file is read and checked whole
 * before anything is stored (docs/decisions/104); then its conversations
 * wait as a job, imported in the background.
 *
 *   202 the job, queued · 400 the file cannot be imported (why, in `error`; nothing stored)
 *   401 not signed in · 409 an import is still running · 413 over 100 MB
 *   429 too many uploads · 503 a store is unreachable
 *
 * GET /api/imports: the user's latest import (`{ import: … | null }`), for the dashboard's progress.
 */

const PRIVATE = { "Cache-Control": "private, no-store" };
const unavailable = () =>
  json({ error: "Imports are unavailable right now. Please try again shortly." }, { status: 503, headers: PRIVATE });

/** Uploads an account may start in an hour: each is read whole, which takes a core for seconds. */
const UPLOADS_PER_HOUR = 10;

export async function uploadImport(request: Request): Promise<Response> {
  const who = await apiSignedIn(request);
  if (who instanceof Response) return unread(request, who);
  const db = await apiDatabase("an import", unavailable);
  if (db instanceof Response) return unread(request, db);
  const uid = who.user.uid;
  try {
    if (await hasUnfinishedImport(db, uid))
      return unread(
        request,
        json(
          { error: "An import is still running. Wait for it to finish, then upload the next file." },
          { status: 409, headers: PRIVATE },
        ),
      );
    const limited = await hitRateLimit(db, `import:${uid}`, UPLOADS_PER_HOUR, 3600);
    if (!limited.allowed)
      return unread(
        request,
        json(
          { error: "Too many imports in the last hour. Please try again later." },
          { status: 429, headers: PRIVATE },
        ),
      );
  } catch (error) {
    logBackendFault("postgres", "checking an import", error);
    return unread(request, unavailable());
  }

  let bytes: Uint8Array | undefined;
  try {
    bytes = await readCapped(request, IMPORT_LIMITS.uploadBytes);
  } catch {
    return json({ error: "The upload was interrupted. Please try again." }, { status: 400, headers: PRIVATE });
  }
  if (!bytes)
    return json(
      { error: `This file is larger than ${formatBytes(IMPORT_LIMITS.uploadBytes)}, the most an import can take.` },
      { status: 413, headers: PRIVATE },
    );

  let read;
  try {
    read = readExport(bytes);
  } catch (error) {
    if (error instanceof ImportFileError) return json({ error: error.message }, { status: 400, headers: PRIVATE });
    throw error;
  }

  try {
    const job = await createImportJob(db, {
      uid,
      source: read.source,
      fileName: fileName(headerFileName(request)),
      items: read.items,
      storageLimitBytes: attachmentLimitsFor(who).storageBytes,
    });
    ensureImportWorker(db);
    void kickImportWorker(db);
    return json({ import: { id: job.id, total: job.total } }, { status: 202, headers: PRIVATE });
  } catch (error) {
    if (isAccountDeleted(error)) return json({ error: "This account was deleted." }, { status: 410, headers: PRIVATE });
    logBackendFault("postgres", "storing an import", error);
    return unavailable();
  }
}

export async function importStatus(request: Request): Promise<Response> {
  const who = await apiSignedIn(request);
  if (who instanceof Response) return who;
  const db = await apiDatabase("an import", unavailable);
  if (db instanceof Response) return db;
  ensureImportWorker(db);
  try {
    return json({ import: await latestImport(db, who.user.uid) }, { headers: PRIVATE });
  } catch (error) {
    logBackendFault("postgres", "reading an import", error);
    return unavailable();
  }
}
