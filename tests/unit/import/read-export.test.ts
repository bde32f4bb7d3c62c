import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import type { ImportedConversation, ReadItem } from "~/data/import/normalized.server";
import { IMPORT_LIMITS } from "~/data/import/normalized.server";
import { ImportFileError, readExport } from "~/data/import/read-export.server";
import {
  chatgptBranched,
  chatgptLooping,
  chatgptSimple,
  claudeBranched,
  claudeLinear,
  exportZip,
  jsonBytes,
} from "../../support/import-fixtures";

/** The parsers of docs/decisions/104: both formats' branches, and files that must be refused whole. */

function conversationOf(item: ReadItem): ImportedConversation {
  if (!("conversation" in item)) throw new Error(`skipped: ${item.skipped}`);
  return item.conversation;
}

/** Each message as "role: text" under its parent's text, to compare trees at a glance. */
function shape(conversation: ImportedConversation) {
  const text = new Map(conversation.messages.map((m) => [m.id, m.text]));
  return conversation.messages.map((m) => [m.parentId ? text.get(m.parentId) : null, `${m.role}: ${m.text}`]);
}

function refusal(bytes: Uint8Array): string {
  try {
    readExport(bytes);
  } catch (error) {
    if (error instanceof ImportFileError) return error.message;
    throw error;
  }
  throw new Error("the file was read");
}

describe("ChatGPT's conversations.json", () => {
  it("keeps every branch, skips system, hidden and tool messages, and shows the current node's branch", () => {
    const read = readExport(jsonBytes([chatgptBranched()]));
    expect(read.source).toBe("chatgpt");
    const conversation = conversationOf(read.items[0]);
    expect(conversation).toMatchObject({
      sourceId: "gpt-lisbon-0001",
      title: "Trip to Lisbon",
      createdAt: "2024-03-01T09:00:00.000Z",
      updatedAt: "2024-03-01T09:10:00.000Z",
      currentLeafId: "a2c",
    });
    expect(shape(conversation)).toEqual([
      [null, "user: Plan three days in Lisbon."],
      ["Plan three days in Lisbon.", "assistant: Day 1: Alfama. Day 2: Belém. Day 3: Sintra."],
      ["Day 1: Alfama. Day 2: Belém. Day 3: Sintra.", "user: Make it cheaper."],
      ["Make it cheaper.", "assistant: Cheaper: walk and take tram 28."],
      ["Day 1: Alfama. Day 2: Belém. Day 3: Sintra.", "user: Make it vegetarian."],
      // The tool message between is left out: both replies follow the question.
      ["Make it vegetarian.", "assistant: Vegetarian: try Ao 26."],
      ["Make it vegetarian.", "assistant: Vegetarian, take two: Jardim dos Sentidos."],
    ]);
    expect(conversation.messages[0].missing).toEqual(["itinerary.pdf"]);
  });

  it("reads the zip ChatGPT sends, and a conversation with a looping tree is skipped and named", () => {
    const read = readExport(
      exportZip([chatgptSimple("one", "First"), chatgptLooping(), chatgptSimple("two", "Second")]),
    );
    expect(read.items.map((item) => ("skipped" in item ? `${item.title}: ${item.skipped}` : item.title))).toEqual([
      "First",
      "Looping: its messages' parents form a loop",
      "Second",
    ]);
  });

  it("refuses a conversation with a message past the bound, saying which", () => {
    const huge = chatgptSimple("big", "Huge paste");
    huge.mapping["big-u"].message!.content.parts = ["x".repeat(IMPORT_LIMITS.messageChars + 1)];
    const [item] = readExport(jsonBytes([huge])).items;
    expect(item).toMatchObject({ title: "Huge paste", skipped: expect.stringMatching(/1,000,001 characters long/) });
  });

  it("notes an image it does not have, and drops empty and unknown messages", () => {
    const conversation = chatgptSimple("img", "Picture");
    conversation.mapping["img-u"].message!.content = {
      content_type: "multimodal_text",
      parts: [{ content_type: "image_asset_pointer", asset_pointer: "file-service://file-abc" }, "What is this?"],
    };
    conversation.mapping["img-a"].message!.content = { content_type: "thoughts", parts: [] };
    const read = conversationOf(readExport(jsonBytes([conversation])).items[0]);
    expect(read.messages).toEqual([expect.objectContaining({ text: "What is this?", missing: ["an image"] })]);
  });
});

describe("Claude.ai's conversations.json", () => {
  it("forms branches from parent_message_uuid, lists files as missing, and shows the latest reply's branch", () => {
    const read = readExport(jsonBytes([claudeBranched()]));
    expect(read.source).toBe("claude");
    const conversation = conversationOf(read.items[0]);
    expect(conversation).toMatchObject({ title: "Sourdough starter", currentLeafId: "c-a2b" });
    expect(shape(conversation)).toEqual([
      [null, "user: How do I feed a sourdough starter?"],
      ["How do I feed a sourdough starter?", "assistant: Equal weights of flour and water, daily."],
      ["Equal weights of flour and water, daily.", "user: And if it smells of acetone?"],
      ["And if it smells of acetone?", "assistant: Feed it more often."],
      ["And if it smells of acetone?", "assistant: It is hungry: feed it twice a day."],
    ]);
    expect(conversation.messages[0].missing).toEqual(["notes.txt", "photo.jpg"]);
  });

  it("chains messages without parent ids in order, and reads Claude's zip", () => {
    const bytes = zipSync({
      "conversations.json": jsonBytes([claudeLinear("lin", "Linear")]),
      "users.json": strToU8("[]"),
    });
    const conversation = conversationOf(readExport(bytes).items[0]);
    expect(shape(conversation).map(([parent]) => parent)).toEqual([
      null,
      "First question",
      "First answer",
      "Second question",
    ]);
  });

  it("skips a conversation whose parents loop", () => {
    const looping = claudeBranched("loop", "Loop");
    looping.chat_messages[0].parent_message_uuid = "c-a1";
    expect(readExport(jsonBytes([looping])).items[0]).toMatchObject({ skipped: "its messages' parents form a loop" });
  });
});

describe("files refused whole", () => {
  it("neither a zip nor JSON", () => {
    expect(refusal(strToU8("%PDF-1.7 not an export"))).toMatch(/neither a zip nor a JSON file/);
  });

  it("JSON cut short", () => {
    expect(refusal(strToU8('[{"id": "x", "mapping": {'))).toMatch(/not valid JSON/);
  });

  it("JSON of another shape", () => {
    expect(refusal(jsonBytes([{ hello: "world" }]))).toMatch(/not an export this app can read/);
    expect(refusal(jsonBytes({ conversations: [] }))).toMatch(/not an export this app can read/);
  });

  it("a zip without conversations.json, and a damaged zip", () => {
    expect(refusal(zipSync({ "notes.txt": strToU8("hi") }))).toMatch(/no conversations.json/);
    const damaged = exportZip([chatgptSimple("d", "D")]).slice(0, 60);
    expect(refusal(damaged)).toMatch(/damaged|neither/);
  });

  it("a zip bomb: a conversations.json that unzips past the bound is refused before inflating", () => {
    // 1 GB of one byte compresses to about a megabyte; build its declared size instead of the bytes.
    const small = zipSync({ "conversations.json": new Uint8Array(1024 * 1024).fill(0x20) }, { level: 9 });
    const view = new DataView(small.buffer, small.byteOffset, small.byteLength);
    // Rewrite the uncompressed size in the central directory (offset 24 of its entry) to 1 GiB.
    const central = findSignature(small, 0x02014b50);
    view.setUint32(central + 24, 1024 * 1024 * 1024, true);
    expect(refusal(small)).toMatch(/unzips to more than 400 MB/);
  });

  it("a zip that lies about its size comes out cut short, and fails as JSON", () => {
    const zip = exportZip([chatgptSimple("l", "Liar")]);
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    const central = findSignature(zip, 0x02014b50);
    view.setUint32(central + 24, 10, true);
    expect(refusal(zip)).toMatch(/not valid JSON/);
  });

  it("a zip with too many entries", () => {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i <= IMPORT_LIMITS.zipEntries; i += 1) files[`f${i}`] = new Uint8Array(0);
    expect(refusal(zipSync(files, { level: 0 }))).toMatch(/more than 20,000 files/);
  });

  it("more conversations than an import takes", () => {
    const many = Array.from({ length: IMPORT_LIMITS.conversations + 1 }, () => ({ mapping: {} }));
    expect(refusal(jsonBytes(many))).toMatch(/at most 10,000 can be imported/);
  });
});

function findSignature(bytes: Uint8Array, signature: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at < bytes.length - 4; at += 1) if (view.getUint32(at, true) === signature) return at;
  throw new Error("no such record");
}
