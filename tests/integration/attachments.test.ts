import { eq } from "drizzle-orm";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AttachmentRef, SourcePassage } from "~/conversation/attachment-types";
import { resetConfig } from "~/config.server";
import { getDb } from "~/db/client.server";
import { attachmentChunks, attachments, conversations, messages } from "~/db/schema";
import { startModelServer, type ModelServer } from "../support/model-server";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import { appHandler } from "../support/remix-app";
import { docx } from "../support/document-fixtures";
import { dataOf, firstMessage, messagesToday, newMessage, postChat, readChunks, replyText } from "./chat-support";

/**
 * Attachments end to end, in-process against the store the suite runs on
 * (PGlite, or the PostgreSQL server with TEST_DATABASE_URL) and the scripted
 * model over real HTTP: upload, download, what the model is sent, Sources,
 * limits, bad input, and the files' lifecycle.
 */

const ENV = {
  LLM_MODELS: "vision-model,text-model",
  LLM_VISION_MODELS: "vision-model",
  ATTACHMENT_MAX_MB: "small=1",
  ATTACHMENTS_PER_MESSAGE: "small=2",
  ATTACHMENT_STORAGE_MB: "small=2",
  LLM_TIMEOUT_MS: "5000",
};

const firebase = admin();
let model: ModelServer;

beforeAll(async () => {
  model = await startModelServer({ models: ["vision-model", "text-model"] });
  Object.assign(process.env, ENV, { LLM_BASE_URL: model.url });
  resetConfig();
});

afterAll(async () => {
  for (const name of [...Object.keys(ENV), "LLM_BASE_URL"]) delete process.env[name];
  resetConfig();
  await model.close();
  await firebase.close();
});

beforeEach(() => model.reset());

async function signedIn(role?: string) {
  const account = await createAccount(firebase, { role });
  return { account, cookie: await sessionCookieFor(account) };
}

/** An upload as the composer sends it: the bytes as the body, the name percent-encoded in X-File-Name. */
async function upload(cookie: string | undefined, name: string, body: Uint8Array | string, path = "/api/attachments") {
  const { action } = await import("~/routes/api.attachments");
  const request = appRequest(path, {
    method: "POST",
    cookie,
    headers: {
      Origin: APP_ORIGIN,
      "Content-Type": "application/octet-stream",
      ...(name ? { "X-File-Name": encodeURIComponent(name) } : {}),
    },
    body: Buffer.from(typeof body === "string" ? new TextEncoder().encode(body) : body),
  });
  return (await action({ request, params: {}, context: {} })) as Response;
}

async function uploaded(cookie: string, name: string, body: Uint8Array | string): Promise<AttachmentRef> {
  const response = await upload(cookie, name, body);
  const json = (await response.json()) as { attachment?: AttachmentRef; error?: string };
  expect(response.status, json.error).toBe(201);
  return json.attachment!;
}

async function download(cookie: string | undefined, id: string) {
  const { loader } = await import("~/routes/api.attachments.$attachmentId");
  return (await loader({
    request: appRequest(`/api/attachments/${id}`, { cookie }),
    params: { attachmentId: id },
    context: {},
  })) as Response;
}

function withFiles(text: string, files: AttachmentRef[], chatModel = "vision-model") {
  return { ...firstMessage(text, chatModel), attachments: files.map((file) => file.id) };
}

/** The user message the model was last sent, as its content parts. */
function lastUserContent() {
  const chats = model.requests.filter((request) => request.path === "/v1/chat/completions");
  const body = chats.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
  const user = body.messages.filter((message) => message.role === "user").at(-1)!;
  return typeof user.content === "string"
    ? [{ type: "text", text: user.content }]
    : (user.content as Array<{ type: string; text?: string; image_url?: { url: string } }>);
}

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(200).fill(7)]);

async function pdfWithPages(pages: number, pageText: (page: number) => string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let page = 1; page <= pages; page += 1) {
    const sheet = pdf.addPage([400, 600]);
    sheet.drawText(pageText(page), { x: 30, y: 550, size: 10, font, maxWidth: 340, lineHeight: 12 });
  }
  return pdf.save();
}

async function rowsOf(uid: string) {
  const db = await getDb();
  return db.select().from(attachments).where(eq(attachments.uid, uid));
}

describe("uploading and downloading", () => {
  it("stores a file under its owner, serves it only to them, as a download that is never rendered", async () => {
    const owner = await signedIn();
    const other = await signedIn();
    const file = await uploaded(owner.cookie, "../../notes/page.html", "<script>alert(1)</script>\nHello");
    // The type comes from the content: HTML is text, served as text/plain; the path is dropped from the name.
    expect(file).toMatchObject({ name: "page.html", kind: "text", mediaType: "text/plain", size: 31 });

    const mine = await download(owner.cookie, file.id);
    expect(mine.status).toBe(200);
    expect(mine.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
    // Saved as text too: a .html opened from the downloads folder would run its script.
    expect(mine.headers.get("Content-Disposition")).toMatch(/^attachment; filename="page.html.txt"/);
    expect(mine.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(mine.headers.get("Content-Security-Policy")).toContain("sandbox");
    expect(await mine.text()).toBe("<script>alert(1)</script>\nHello");

    expect((await download(other.cookie, file.id)).status).toBe(404);
    expect((await download(undefined, file.id)).status).toBe(401);
    expect((await upload(undefined, "x.txt", "hello")).status).toBe(401);
  });

  it("reads the kind from the content, whatever the name says, and saves the file with an extension that says what it is", async () => {
    const { cookie } = await signedIn();
    const image = await uploaded(cookie, "holiday.pdf", PNG);
    expect(image).toMatchObject({ kind: "image", mediaType: "image/png", name: "holiday.pdf" });
    expect((await download(cookie, image.id)).headers.get("Content-Disposition")).toMatch(
      /^attachment; filename="holiday.pdf.png"/,
    );
    const pdf = await uploaded(cookie, "report.html", await pdfWithPages(1, () => "A PDF named like a page."));
    expect((await download(cookie, pdf.id)).headers.get("Content-Disposition")).toMatch(
      /^attachment; filename="report.html.pdf"/,
    );
  });

  it("takes the name from X-File-Name (percent-encoded UTF-8), never from the URL", async () => {
    const { cookie } = await signedIn();
    expect(await uploaded(cookie, "résumé 2026.txt", "hello")).toMatchObject({ name: "résumé 2026.txt" });
    const fromUrl = await upload(cookie, "", "hello", "/api/attachments?name=secret-plans.txt");
    expect(fromUrl.status).toBe(201);
    expect(((await fromUrl.json()) as { attachment: AttachmentRef }).attachment.name).toBe("file");
  });

  it("drops invisible format characters from names: a right-to-left override can't make invoice.exe look like a .jpg", async () => {
    const { cookie } = await signedIn();
    const cases: Array<[string, string, string]> = [
      // name sent, name stored, name the download is saved as
      ["invoice\u202Egpj.exe", "invoicegpj.exe", "invoicegpj.exe.txt"],
      ["\u2066report\u2069\u200B.md", "report.md", "report.md"],
      ["\uFEFFnotes\u200E\u200F\u2028.txt", "notes.txt", "notes.txt"],
      ["tab\u0085le\u00AD.csv", "table.csv", "table.csv"],
    ];
    for (const [sent, stored, saved] of cases) {
      const file = await uploaded(cookie, sent, "some text");
      expect(file.name, JSON.stringify(sent)).toBe(stored);
      const disposition = (await download(cookie, file.id)).headers.get("Content-Disposition")!;
      expect(disposition).toBe(`attachment; filename="${saved}"; filename*=UTF-8''${encodeURIComponent(saved)}`);
      expect(decodeURIComponent(disposition.split("UTF-8''")[1])).not.toMatch(/\p{Cf}/u);
    }
  });

  it("saves text files under an extension that opens harmlessly: .txt is added to anything that could run or render", async () => {
    const { cookie } = await signedIn();
    const cases: Array<[string, string]> = [
      ["notes.txt", "notes.txt"],
      ["README.md", "README.md"],
      ["table.CSV", "table.CSV"],
      ["data.json", "data.json"],
      ["server.log", "server.log"],
      ["main.ts", "main.ts"],
      ["Makefile", "Makefile.txt"],
      ["logo.svg", "logo.svg.txt"],
      ["app.js", "app.js.txt"],
      ["run.bat", "run.bat.txt"],
      ["setup.ps1", "setup.ps1.txt"],
      ["update.hta", "update.hta.txt"],
      ["macro.vbs", "macro.vbs.txt"],
      ["install.cmd", "install.cmd.txt"],
      ["script.py", "script.py.txt"],
    ];
    for (const [name, saved] of cases) {
      const file = await uploaded(cookie, name, "echo hello\n");
      expect(file.name).toBe(name);
      expect((await download(cookie, file.id)).headers.get("Content-Disposition"), name).toBe(
        `attachment; filename="${saved}"; filename*=UTF-8''${saved}`,
      );
    }
  });

  it("limits how fast an account uploads (30 a minute here), counted in PostgreSQL, with Retry-After", async () => {
    const minute = () => Math.floor(Date.now() / 60_000);
    // The count is kept per clock minute: a run that crossed into the next minute proves nothing, and is run again.
    let account, cookie, refused, started;
    do {
      started = minute();
      ({ account, cookie } = await signedIn());
      for (let index = 0; index < 30; index++) await uploaded(cookie, `note-${index}.txt`, `note ${index}`);
      refused = await upload(cookie, "one-more.txt", "one more");
    } while (minute() !== started);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /^You're attaching files faster than allowed\. Please wait (a second|\d+ seconds) and try again\.$/,
    );
    expect(await rowsOf(account.uid)).toHaveLength(30);
    // Another account is not held back.
    await uploaded((await signedIn()).cookie, "mine.txt", "mine");
  });

  it("refuses bad files with a clear message and stores nothing of them", async () => {
    const { account, cookie } = await signedIn();
    const damaged = (await pdfWithPages(3, (page) => `Page ${page}`)).slice(0, 400);
    const cases: Array<[string, Uint8Array | string, RegExp]> = [
      ["empty.txt", "", /empty/i],
      ["report.pdf", damaged, /damaged|can't be read/i],
      ["archive.zip", Uint8Array.from([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]), /isn't a kind of file/i],
      ["binary.bin", Uint8Array.from([0, 1, 2, 3, 0xff, 0xfe, 0]), /isn't a kind of file/i],
    ];
    for (const [name, body, message] of cases) {
      const response = await upload(cookie, name, body);
      expect(response.status, name).toBe(400);
      expect(((await response.json()) as { error: string }).error).toMatch(message);
    }
    expect(await rowsOf(account.uid)).toEqual([]);
  });

  it("keeps to the role's file size and storage limits, counting the body as it streams in", async () => {
    const { account, cookie } = await signedIn("small");
    const big = new TextEncoder().encode("a".repeat(1024 * 1024 + 10));
    const tooBig = await upload(cookie, "big.txt", big);
    expect(tooBig.status).toBe(413);
    expect(((await tooBig.json()) as { error: string }).error).toBe(
      '"big.txt" is too large: files can be at most 1.0 MB on your plan.',
    );
    const almost = "b".repeat(900 * 1024);
    await uploaded(cookie, "one.txt", almost);
    await uploaded(cookie, "two.txt", almost);
    const full = await upload(cookie, "three.txt", almost);
    expect(full.status).toBe(413);
    expect(((await full.json()) as { error: string }).error).toMatch(
      /^Your file storage is full \(1\.8 MB of 2\.0 MB\)/,
    );
    expect((await rowsOf(account.uid)).map((row) => row.name).sort()).toEqual(["one.txt", "two.txt"]);
  });

  it("removes a file not sent yet, but not one sent with a message", async () => {
    const { account, cookie } = await signedIn();
    const file = await uploaded(cookie, "draft.txt", "a draft");
    const { action } = await import("~/routes/api.attachments.$attachmentId");
    const remove = async (id: string) =>
      (await action({
        request: appRequest(`/api/attachments/${id}`, { method: "DELETE", cookie, headers: { Origin: APP_ORIGIN } }),
        params: { attachmentId: id },
        context: {},
      })) as Response;
    expect((await remove(file.id)).status).toBe(200);
    expect(await rowsOf(account.uid)).toEqual([]);

    const sent = await uploaded(cookie, "sent.txt", "kept with its message");
    await readChunks(await postChat(withFiles("Read this", [sent]), { cookie }));
    expect((await remove(sent.id)).status).toBe(404);
    expect(await rowsOf(account.uid)).toHaveLength(1);
  });
});

describe("sending files with a message", () => {
  it("sends a short document whole, lists it as the reply's source, and stores the file with the message", async () => {
    const { account, cookie } = await signedIn();
    const file = await uploaded(cookie, "recipe.md", "# Pancakes\n\nFlour, eggs, milk. Whisk and fry.");
    const body = withFiles("What do I need?", [file]);
    const chunks = await readChunks(await postChat(body, { cookie }));

    const sent = lastUserContent()
      .map((part) => part.text ?? "")
      .join("\n");
    expect(sent).toContain(
      '<document number="1" name="recipe.md">\n# Pancakes\n\nFlour, eggs, milk. Whisk and fry.\n</document>',
    );
    // Numbered so that the reply can cite it: its Sources list only what it cites (docs/decisions/084).
    expect(sent).toContain("cite it by its number, e.g. [1]");
    expect(dataOf<{ passages: SourcePassage[] }>(chunks, "sources")?.passages).toEqual([
      {
        attachmentId: file.id,
        name: "recipe.md",
        location: "whole document",
        text: "# Pancakes\n\nFlour, eggs, milk. Whisk and fry.",
      },
    ]);

    const db = await getDb();
    const [row] = await db.select().from(attachments).where(eq(attachments.id, file.id));
    expect(row.messageId).toBe(body.message.id);
    const [stored] = await db.select().from(messages).where(eq(messages.id, body.message.id));
    expect(stored.parts).toEqual([
      { type: "text", text: "What do I need?" },
      { type: "data-attachment", data: file },
    ]);
    const reply = (await db.select().from(messages).where(eq(messages.parentId, body.message.id)))[0];
    expect(reply.parts).toContainEqual(expect.objectContaining({ type: "data-sources" }));
    expect(await messagesToday(account.uid)).toBe(1);
  });

  it("reads a Word document's text and sends it whole", async () => {
    const { cookie } = await signedIn();
    const file = await uploaded(
      cookie,
      "minutes.docx",
      docx(["Minutes of the board.", "The budget was approved at 4.2 million."]),
    );
    expect(file).toMatchObject({
      kind: "docx",
      mediaType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    });
    await readChunks(await postChat(withFiles("What was approved?", [file]), { cookie }));
    const sent = lastUserContent()
      .map((part) => part.text ?? "")
      .join("\n");
    expect(sent).toContain('<document number="1" name="minutes.docx">');
    expect(sent).toContain("The budget was approved at 4.2 million.");
  });

  it("sends an image as an image part to a model that can see, and refuses it before counting for one that can't", async () => {
    const { account, cookie } = await signedIn();
    const image = await uploaded(cookie, "photo.png", PNG);
    const chunks = await readChunks(await postChat(withFiles("What is this?", [image]), { cookie }));
    expect(replyText(chunks)).toContain(`[image image/png, ${PNG.byteLength} bytes]`);

    const another = await uploaded(cookie, "again.png", PNG);
    const refused = await postChat(withFiles("And this?", [another], "text-model"), { cookie });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe(
      "text-model can't see images. Choose a model that can (vision-model), or remove the image.",
    );
    expect(await messagesToday(account.uid)).toBe(1);
  });

  it("finds the passages of a long document that answer the question, with their lines", async () => {
    const { cookie } = await signedIn();
    const filler = (word: string) =>
      Array.from(
        { length: 400 },
        (_, i) => `${word} ${i} talks about weather, rivers and the ordinary business of the town.`,
      ).join("\n");
    const text = `${filler("Line")}\nThe secret launch code is PELICAN-42, kept by the harbour master.\n${filler("Row")}`;
    const file = await uploaded(cookie, "log.txt", text);
    const chunks = await readChunks(await postChat(withFiles("What is the secret launch code?", [file]), { cookie }));

    const sent = lastUserContent()
      .map((part) => part.text ?? "")
      .join("\n");
    expect(sent).toContain("PELICAN-42");
    // Not the whole document: a note where it was attached, and the passages.
    expect(sent).not.toContain("Line 100 talks");
    expect(sent).not.toContain("Row 300 talks");
    expect(sent).toContain("[Document attached: log.txt");
    const passages = dataOf<{ passages: SourcePassage[] }>(chunks, "sources")!.passages;
    expect(passages[0]).toMatchObject({ name: "log.txt", location: expect.stringMatching(/^lines \d+–\d+$/) });
    expect(passages[0].text).toContain("PELICAN-42");
  });

  it("indexes a 200-page PDF and cites the page that answers", async () => {
    const { cookie } = await signedIn();
    const pdf = await pdfWithPages(200, (page) =>
      page === 137
        ? "Zebras follow the long rains across the plains in their yearly migration."
        : `Page ${page} is about accounting and ledgers. `.repeat(8),
    );
    const file = await uploaded(cookie, "handbook.pdf", pdf);
    expect(file).toMatchObject({ kind: "pdf", pages: 200 });
    const db = await getDb();
    expect(
      (await db.select().from(attachmentChunks).where(eq(attachmentChunks.attachmentId, file.id))).length,
    ).toBeGreaterThan(1);

    const chunks = await readChunks(await postChat(withFiles("When do zebras migrate?", [file]), { cookie }));
    const passages = dataOf<{ passages: SourcePassage[] }>(chunks, "sources")!.passages;
    expect(passages[0].location).toMatch(/^pp?\. .*137/);
    expect(passages[0].text).toContain("Zebras follow the long rains");
  });

  it("refuses files of another user, files already sent with another message, and more files than the role allows", async () => {
    const owner = await signedIn();
    const thief = await signedIn("small");
    const file = await uploaded(owner.cookie, "private.txt", "mine");
    const stolen = await postChat(withFiles("Read it", [file]), { cookie: thief.cookie });
    expect(stolen.status).toBe(400);
    expect(((await stolen.json()) as { error: string }).error).toMatch(/isn't available any more/);

    await readChunks(await postChat(withFiles("First", [file]), { cookie: owner.cookie }));
    const again = await postChat(withFiles("Second", [file]), { cookie: owner.cookie });
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: string }).error).toBe(
      '"private.txt" was already sent with another message. Attach it again to send it with this one.',
    );

    const three = await Promise.all(["a.txt", "b.txt", "c.txt"].map((name) => uploaded(thief.cookie, name, name)));
    const tooMany = await postChat(withFiles("All of them", three), { cookie: thief.cookie });
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { error: string }).error).toBe(
      "You can send at most 2 files with a message; this one has 3.",
    );
    expect(await messagesToday(thief.account.uid)).toBe(0);
  });

  it("answers a follow-up about a document sent earlier in the conversation", async () => {
    const { cookie } = await signedIn();
    const file = await uploaded(cookie, "facts.txt", "The lighthouse was built in 1887 by Ada Quill.");
    const first = withFiles("Read this", [file]);
    await readChunks(await postChat(first, { cookie }));
    await readChunks(
      await postChat(
        { conversationId: first.conversationId, message: newMessage("Who built it?"), model: "vision-model" },
        { cookie },
      ),
    );
    const sent = lastUserContent();
    const everything = JSON.stringify(model.requests.filter((r) => r.path === "/v1/chat/completions").at(-1)!.body);
    expect(everything).toContain("Ada Quill");
    expect(sent.map((part) => part.text).join("")).toContain("Who built it?");
  });
});

describe("the files' lifecycle", () => {
  it("deleting a conversation deletes its files and their passages", async () => {
    const { account, cookie } = await signedIn();
    const file = await uploaded(cookie, "gone.txt", "soon gone");
    const body = withFiles("Keep this", [file]);
    await readChunks(await postChat(body, { cookie }));
    const db = await getDb();
    await db.delete(conversations).where(eq(conversations.id, body.conversationId));
    expect(await rowsOf(account.uid)).toEqual([]);
    expect(await db.select().from(attachmentChunks).where(eq(attachmentChunks.attachmentId, file.id))).toEqual([]);
  });

  it("the data export holds the files, and a report names them", async () => {
    const { account, cookie } = await signedIn();
    const file = await uploaded(cookie, "export.txt", "export me");
    const body = withFiles("Here", [file]);
    const chunks = await readChunks(await postChat(body, { cookie }));
    const replyId = dataOf<{ replyId: string }>(chunks, "saved")!.replyId;

    const { exportAccountData, getAccountDetails } = await import("~/data/account.server");
    const exported = await exportAccountData(await getDb(), await getAccountDetails(account.uid), {
      role: "",
      plan: "Free",
    });
    expect(exported.files).toEqual([
      expect.objectContaining({
        id: file.id,
        messageId: body.message.id,
        name: "export.txt",
        contentBase64: Buffer.from("export me").toString("base64"),
      }),
    ]);

    const { findReportedExchange } = await import("~/data/inbox.server");
    expect((await findReportedExchange(await getDb(), account.uid, replyId))?.attachmentNames).toEqual(["export.txt"]);
  });
});

describe("passages found by meaning (LLM_EMBEDDING_MODEL)", () => {
  beforeAll(() => {
    process.env.LLM_EMBEDDING_MODEL = "embed-model";
    resetConfig();
  });
  afterAll(() => {
    delete process.env.LLM_EMBEDDING_MODEL;
    resetConfig();
  });

  const ledger = Array.from(
    { length: 600 },
    (_, i) => `Ledger line ${i} records debit ${i} and credit ${i + 1} for the harbour office.`,
  );
  const withCommonWords = [
    ...ledger.slice(0, 300),
    "This is it, and that was that, as it was.",
    ...ledger.slice(300),
  ].join("\n");

  it("stores each passage's vector and finds a passage that full-text search can't (a question of common words only)", async () => {
    const { cookie } = await signedIn();
    const file = await uploaded(cookie, "ledger.txt", withCommonWords);
    const db = await getDb();
    const stored = await db.select().from(attachmentChunks).where(eq(attachmentChunks.attachmentId, file.id));
    expect(stored.length).toBeGreaterThan(10);
    expect(stored.every((chunk) => chunk.embedding?.length === 64)).toBe(true);
    const embedded = model.embeddingsRequests.flatMap((request) => (request.body as { input: string[] }).input);
    expect(embedded).toHaveLength(stored.length);

    const chunks = await readChunks(await postChat(withFiles("this is it and that was that", [file]), { cookie }));
    const passages = dataOf<{ passages: SourcePassage[] }>(chunks, "sources")!.passages;
    // English full-text search drops every one of these words; the vectors still find the line.
    expect(passages[0].text).toContain("This is it, and that was that");
    expect(model.embeddingsRequests.at(-1)!.body).toMatchObject({
      model: "embed-model",
      input: ["this is it and that was that"],
    });
  });

  it("stores a document without vectors when the embeddings endpoint fails, and still finds passages by their words", async () => {
    const { cookie } = await signedIn();
    model.enqueueEmbeddings({ type: "http-error", status: 500 });
    const file = await uploaded(cookie, "ledger.txt", `${ledger.join("\n")}\nThe vault combination is 7-19-42.`);
    const db = await getDb();
    const stored = await db.select().from(attachmentChunks).where(eq(attachmentChunks.attachmentId, file.id));
    expect(stored.every((chunk) => chunk.embedding === null)).toBe(true);
    const chunks = await readChunks(await postChat(withFiles("What is the vault combination?", [file]), { cookie }));
    expect(dataOf<{ passages: SourcePassage[] }>(chunks, "sources")!.passages[0].text).toContain(
      "The vault combination is 7-19-42.",
    );
  });
});

describe("files in share links", () => {
  let handle: (request: Request) => Promise<Response>;
  beforeAll(async () => {
    handle = await appHandler();
  });

  async function sharedConversation(includeFiles: boolean, name = "itinerary.txt") {
    const { cookie } = await signedIn();
    const file = await uploaded(cookie, name, "Day one: Belém. Day two: Alfama.");
    const body = withFiles("Plan from my notes", [file]);
    // Not the echo: it would quote the file in the reply, which a share shows like any reply.
    model.enqueue({ type: "text", text: "Here is your plan [1]." });
    await readChunks(await postChat(body, { cookie }));
    const response = await handle(
      appRequest(`/api/conversations/${body.conversationId}/share`, {
        method: "POST",
        cookie,
        headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ intent: "create", ...(includeFiles ? { includeFiles: "on" } : {}) }),
      }),
    );
    expect(response.status).toBe(201);
    const { share } = (await response.json()) as { share: { id: string; includeFiles: boolean } };
    return { cookie, file, share };
  }

  it("leaves files and the passages quoted from them out of a link, unless the owner includes them", async () => {
    const { file, share } = await sharedConversation(false);
    expect(share.includeFiles).toBe(false);
    const page = await (await handle(appRequest(`/s/${share.id}`))).text();
    expect(page).toContain("Plan from my notes");
    expect(page).not.toContain("itinerary.txt");
    expect(page).not.toContain("Day one: Belém");
    expect((await handle(appRequest(`/s/${share.id}/files/${file.id}`))).status).toBe(404);
  });

  it("serves an included file to anyone with the link, as a download, until the link is revoked", async () => {
    const { cookie, file, share } = await sharedConversation(true);
    const page = await (await handle(appRequest(`/s/${share.id}`))).text();
    expect(page).toContain(`href="/s/${share.id}/files/${file.id}"`);
    expect(page).toContain("Sources");

    const download = await handle(appRequest(`/s/${share.id}/files/${file.id}`));
    expect(download.status).toBe(200);
    expect(download.headers.get("Content-Disposition")).toMatch(/^attachment; filename="itinerary.txt"/);
    expect(download.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(download.headers.get("X-Robots-Tag")).toBe("noindex");
    expect(await download.text()).toBe("Day one: Belém. Day two: Alfama.");

    // Only files the snapshot shows: another of the owner's files is not reachable through it.
    const other = await uploaded(cookie, "private.txt", "not shared");
    expect((await handle(appRequest(`/s/${share.id}/files/${other.id}`))).status).toBe(404);

    const revoked = await handle(
      appRequest(`/api/shares/${share.id}`, {
        method: "POST",
        cookie,
        headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ intent: "revoke" }),
      }),
    );
    expect(revoked.status).toBe(200);
    expect((await handle(appRequest(`/s/${share.id}/files/${file.id}`))).status).toBe(404);
  });

  it("serves a shared text file under a harmless extension, and its name without format characters", async () => {
    const { file, share } = await sharedConversation(true, "itinerary\u202Elmth.html");
    expect(file.name).toBe("itinerarylmth.html");
    const download = await handle(appRequest(`/s/${share.id}/files/${file.id}`));
    expect(download.status).toBe(200);
    expect(download.headers.get("Content-Disposition")).toBe(
      `attachment; filename="itinerarylmth.html.txt"; filename*=UTF-8''itinerarylmth.html.txt`,
    );
  });
});
