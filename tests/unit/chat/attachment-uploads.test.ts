import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { pendingFiles, readyFiles } from "~/components/chat/attachment-uploads";
import type { AttachmentRef } from "~/conversation/attachment-types";

/**
 * The composer's files are kept per chat, like its draft, and go with a new
 * chat to its conversation's id (app/components/chat/attachment-uploads.ts):
 * its page is another route with a view of its own.
 */

/** An upload the test answers when it wants to, as the server would. */
class FakeUpload {
  static sent: FakeUpload[] = [];
  upload: { onprogress?: (event: { lengthComputable: boolean; loaded: number; total: number }) => void } = {};
  onload?: () => void;
  onerror?: () => void;
  responseType = "";
  status = 0;
  response: unknown = null;
  headers: Record<string, string> = {};
  body?: File;
  open() {}
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: File) {
    this.body = body;
    FakeUpload.sent.push(this);
  }
  abort() {}
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ lengthComputable: true, loaded, total });
  }
  stored(attachment: AttachmentRef) {
    this.status = 201;
    this.response = { attachment };
    this.onload?.();
  }
}

const LIMITS = { maxFileBytes: 1_000_000, perMessage: 5 };
const textFile = (name: string, text: string) => new File([text], name, { type: "text/plain" });
const storedAs = (id: string, name: string): AttachmentRef => ({
  id,
  name,
  kind: "text",
  mediaType: "text/plain",
  size: 10,
});
const shown = (chat: string) => pendingFiles.of(chat).map((file) => [file.name, file.status]);

beforeEach(() => {
  FakeUpload.sent = [];
  vi.stubGlobal("XMLHttpRequest", FakeUpload);
});

afterEach(() => {
  pendingFiles.clear("new");
  pendingFiles.clear("c1");
  vi.unstubAllGlobals();
});

describe("the composer's files when a new chat gets its conversation id", () => {
  it("go with it, and an upload that ends after the move ends there", () => {
    pendingFiles.add("new", [textFile("timetable.txt", "07:15"), textFile("fares.txt", "12 euros")], LIMITS);
    const [timetable, fares] = FakeUpload.sent;
    expect(timetable.headers["X-File-Name"]).toBe("timetable.txt");
    timetable.stored(storedAs("a1", "timetable.txt"));
    fares.progress(4, 10);

    pendingFiles.move("new", "c1");
    expect(shown("new")).toEqual([]);
    expect(shown("c1")).toEqual([
      ["timetable.txt", "ready"],
      ["fares.txt", "uploading"],
    ]);
    expect(pendingFiles.of("c1")[1].progress).toBe(0.4);

    fares.stored(storedAs("a2", "fares.txt"));
    expect(shown("new")).toEqual([]);
    expect(shown("c1")).toEqual([
      ["timetable.txt", "ready"],
      ["fares.txt", "ready"],
    ]);
    // The next send carries both.
    expect(readyFiles(pendingFiles.of("c1")).map((file) => file.id)).toEqual(["a1", "a2"]);
  });

  it("tell whoever shows them of each change, and a file chosen after the move joins them", () => {
    const heard = vi.fn();
    const stop = pendingFiles.subscribe(heard);
    pendingFiles.add("new", [textFile("timetable.txt", "07:15")], LIMITS);
    pendingFiles.move("new", "c1");
    pendingFiles.add("c1", [textFile("fares.txt", "12 euros")], LIMITS);
    FakeUpload.sent[0].stored(storedAs("a1", "timetable.txt"));
    stop();
    expect(heard).toHaveBeenCalledTimes(4);
    expect(shown("c1")).toEqual([
      ["timetable.txt", "ready"],
      ["fares.txt", "uploading"],
    ]);
  });

  it("count against the message's limit where they now are", () => {
    pendingFiles.add("new", [textFile("one.txt", "1"), textFile("two.txt", "2")], LIMITS);
    pendingFiles.move("new", "c1");
    pendingFiles.add("c1", [textFile("three.txt", "3")], { ...LIMITS, perMessage: 2 });
    expect(shown("c1")).toEqual([
      ["one.txt", "uploading"],
      ["two.txt", "uploading"],
      ["three.txt", "failed"],
    ]);
  });
});
