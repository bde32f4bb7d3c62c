import { useCallback, useRef, useSyncExternalStore } from "react";
import { attachmentUrl, formatBytes, type AttachmentRef } from "~/conversation/attachment-types";

/**
 * Files the user is attaching to the next message: each uploads at once (so
 * sending is quick), with its progress; it can be removed before sending. An
 * upload is the file's bytes as the body of POST /api/attachments, its name
 * in X-File-Name — XHR, not fetch, because only XHR reports upload progress.
 */

export interface PendingFile {
  /** Local key (the server's id is known only once it is stored). */
  key: string;
  name: string;
  size: number;
  /** 0..1 while uploading. */
  progress: number;
  status: "uploading" | "ready" | "failed";
  error?: string;
  /** The stored file, once uploaded. */
  stored?: AttachmentRef;
  /** A local preview of an image, shown as its thumbnail while it uploads and after. */
  previewUrl?: string;
}

export interface UploadLimits {
  maxFileBytes: number;
  perMessage: number;
}

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);

/**
 * The files attached in each chat's composer, by the chat's draft key ("new"
 * on /nuvara, else the conversation's id; app/components/chat/drafts.ts). They
 * live outside the chat's view because a new chat's first exchange moves it to
 * /nuvara/<id>, another route with a view of its own: its files go with it,
 * as its draft does, and uploads still running finish there. Like drafts they
 * are kept while the tab lives: a chat left and opened again still has them.
 */
const attached = new Map<string, readonly PendingFile[]>();
/** Uploads in flight, by the file's local key. */
const requests = new Map<string, XMLHttpRequest>();
const listeners = new Set<() => void>();
const NONE: readonly PendingFile[] = [];

function filesOf(chat: string): readonly PendingFile[] {
  return attached.get(chat) ?? NONE;
}

function setFiles(chat: string, files: readonly PendingFile[]) {
  if (files.length > 0) attached.set(chat, files);
  else attached.delete(chat);
  for (const listener of listeners) listener();
}

/** Looked up by the file, not the chat: the chat may have moved to its conversation's id since the upload began. */
function update(key: string, change: Partial<PendingFile>) {
  for (const [chat, files] of attached) {
    if (!files.some((file) => file.key === key)) continue;
    setFiles(
      chat,
      files.map((file) => (file.key === key ? { ...file, ...change } : file)),
    );
    return;
  }
}

function upload(key: string, file: File) {
  const request = new XMLHttpRequest();
  requests.set(key, request);
  request.open("POST", "/api/attachments");
  // The name goes in a header, never in the URL: access logs print URLs.
  request.setRequestHeader("X-File-Name", encodeURIComponent(file.name || "file"));
  request.responseType = "json";
  request.upload.onprogress = (event) => {
    if (event.lengthComputable) update(key, { progress: event.loaded / event.total });
  };
  request.onload = () => {
    requests.delete(key);
    const body = request.response as { attachment?: AttachmentRef; error?: string } | null;
    if (request.status === 201 && body?.attachment)
      update(key, { status: "ready", progress: 1, stored: body.attachment });
    else
      update(key, {
        status: "failed",
        error: body?.error ?? `The upload failed (${request.status}). Please try again.`,
      });
  };
  request.onerror = () => {
    requests.delete(key);
    update(key, { status: "failed", error: "The upload failed: the connection dropped. Please try again." });
  };
  request.send(file);
}

/** Why a file is not attached, if it isn't; `count` files already go with the message. */
function refusal(file: File, count: number, limits: UploadLimits): string | undefined {
  if (count >= limits.perMessage)
    return `Not attached: at most ${limits.perMessage} file${limits.perMessage === 1 ? "" : "s"} a message.`;
  if (file.size > limits.maxFileBytes) return `Too large: at most ${formatBytes(limits.maxFileBytes)}.`;
  if (file.size === 0) return "This file is empty.";
  return undefined;
}

/** The composer's files by chat: the store behind useAttachmentUploads. */
export const pendingFiles = {
  of: filesOf,

  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },

  add(chat: string, list: readonly File[], limits: UploadLimits) {
    let count = filesOf(chat).filter((file) => file.status !== "failed").length;
    const added: PendingFile[] = [];
    const toUpload: Array<[string, File]> = [];
    for (const file of list) {
      const pending: PendingFile = {
        key: crypto.randomUUID(),
        name: file.name || "file",
        size: file.size,
        progress: 0,
        status: "uploading",
      };
      const error = refusal(file, count, limits);
      if (error) {
        added.push({ ...pending, status: "failed", error });
        continue;
      }
      count += 1;
      if (IMAGE_TYPES.has(file.type)) pending.previewUrl = URL.createObjectURL(file);
      added.push(pending);
      toUpload.push([pending.key, file]);
    }
    setFiles(chat, [...filesOf(chat), ...added]);
    // Started once listed: an upload's progress and result find their file by its key.
    for (const [key, file] of toUpload) upload(key, file);
  },

  remove(chat: string, key: string) {
    const file = filesOf(chat).find((item) => item.key === key);
    requests.get(key)?.abort();
    requests.delete(key);
    // Stored but not sent: the server forgets it too (it would otherwise count against storage for a day).
    if (file?.stored) void fetch(attachmentUrl(file.stored.id), { method: "DELETE" }).catch(() => undefined);
    if (file?.previewUrl) URL.revokeObjectURL(file.previewUrl);
    setFiles(
      chat,
      filesOf(chat).filter((item) => item.key !== key),
    );
  },

  /** Once sent: the chips leave the composer (the files now belong to the message). */
  clear(chat: string) {
    for (const file of filesOf(chat)) if (file.previewUrl) URL.revokeObjectURL(file.previewUrl);
    setFiles(chat, NONE);
  },

  /** A new chat got its conversation id: its files go with it. */
  move(from: string, to: string) {
    const moving = filesOf(from);
    if (from === to || moving.length === 0) return;
    attached.delete(from);
    setFiles(to, [...filesOf(to), ...moving]);
  },
};

/**
 * The files attached in one chat's composer (`key` as for its draft), and
 * `moveTo(id)` for when a new chat gets its conversation id.
 */
export function useAttachmentUploads(key: string, limits: UploadLimits) {
  // Like the draft's (app/components/chat/drafts.ts): this view stays until the
  // conversation's page shows, and a file chosen meanwhile goes under the new id.
  const chat = useRef(key);
  const files = useSyncExternalStore(
    pendingFiles.subscribe,
    () => filesOf(chat.current),
    () => NONE,
  );
  const add = useCallback((list: readonly File[]) => pendingFiles.add(chat.current, list, limits), [limits]);
  const remove = useCallback((fileKey: string) => pendingFiles.remove(chat.current, fileKey), []);
  const clear = useCallback(() => pendingFiles.clear(chat.current), []);
  const moveTo = useCallback((id: string) => {
    const from = chat.current;
    // Switched first: the store's listeners then read the files where they now are.
    chat.current = id;
    pendingFiles.move(from, id);
  }, []);
  return { files, add, remove, clear, moveTo };
}

/** The files ready to go with a message (failed ones are not sent; uploading ones hold Send back). */
export function readyFiles(files: readonly PendingFile[]): AttachmentRef[] {
  return files.flatMap((file) => (file.status === "ready" && file.stored ? [file.stored] : []));
}
