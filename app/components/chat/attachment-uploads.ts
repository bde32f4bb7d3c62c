import { useCallback, useEffect, useRef, useState } from "react";
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

export function useAttachmentUploads(limits: UploadLimits) {
  const [files, setFiles] = useState<PendingFile[]>([]);
  const requests = useRef(new Map<string, XMLHttpRequest>());
  const previews = useRef(new Set<string>());

  const update = useCallback((key: string, change: Partial<PendingFile>) => {
    setFiles((current) => current.map((file) => (file.key === key ? { ...file, ...change } : file)));
  }, []);

  // Leaving the chat: uploads in flight stop, local previews are released.
  useEffect(() => {
    const inFlight = requests.current;
    const urls = previews.current;
    return () => {
      for (const request of inFlight.values()) request.abort();
      for (const url of urls) URL.revokeObjectURL(url);
    };
  }, []);

  const upload = useCallback(
    (key: string, file: File) => {
      const request = new XMLHttpRequest();
      requests.current.set(key, request);
      request.open("POST", "/api/attachments");
      // The name goes in a header, never in the URL: access logs print URLs.
      request.setRequestHeader("X-File-Name", encodeURIComponent(file.name || "file"));
      request.responseType = "json";
      request.upload.onprogress = (event) => {
        if (event.lengthComputable) update(key, { progress: event.loaded / event.total });
      };
      request.onload = () => {
        requests.current.delete(key);
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
        requests.current.delete(key);
        update(key, { status: "failed", error: "The upload failed: the connection dropped. Please try again." });
      };
      request.send(file);
    },
    [update],
  );

  const add = useCallback(
    (list: readonly File[]) => {
      let count = files.filter((file) => file.status !== "failed").length;
      const added: PendingFile[] = [];
      for (const file of list) {
        const pending: PendingFile = {
          key: crypto.randomUUID(),
          name: file.name || "file",
          size: file.size,
          progress: 0,
          status: "uploading",
        };
        const error =
          count >= limits.perMessage
            ? `Not attached: at most ${limits.perMessage} file${limits.perMessage === 1 ? "" : "s"} a message.`
            : file.size > limits.maxFileBytes
              ? `Too large: at most ${formatBytes(limits.maxFileBytes)}.`
              : file.size === 0
                ? "This file is empty."
                : undefined;
        if (error) {
          added.push({ ...pending, status: "failed", error });
          continue;
        }
        count += 1;
        if (IMAGE_TYPES.has(file.type)) {
          pending.previewUrl = URL.createObjectURL(file);
          previews.current.add(pending.previewUrl);
        }
        added.push(pending);
        upload(pending.key, file);
      }
      setFiles((current) => [...current, ...added]);
    },
    [files, limits.maxFileBytes, limits.perMessage, upload],
  );

  const remove = useCallback((key: string) => {
    setFiles((current) => {
      const file = current.find((item) => item.key === key);
      requests.current.get(key)?.abort();
      requests.current.delete(key);
      // Stored but not sent: the server forgets it too (it would otherwise count against storage for a day).
      if (file?.stored) void fetch(attachmentUrl(file.stored.id), { method: "DELETE" }).catch(() => undefined);
      if (file?.previewUrl) {
        URL.revokeObjectURL(file.previewUrl);
        previews.current.delete(file.previewUrl);
      }
      return current.filter((item) => item.key !== key);
    });
  }, []);

  /** Once sent: the chips leave the composer (the files now belong to the message). */
  const clear = useCallback(() => {
    for (const url of previews.current) URL.revokeObjectURL(url);
    previews.current.clear();
    setFiles([]);
  }, []);

  return { files, add, remove, clear };
}

/** The files ready to go with a message (failed ones are not sent; uploading ones hold Send back). */
export function readyFiles(files: readonly PendingFile[]): AttachmentRef[] {
  return files.flatMap((file) => (file.status === "ready" && file.stored ? [file.stored] : []));
}
