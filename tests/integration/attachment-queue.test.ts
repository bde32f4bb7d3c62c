import fs from "node:fs";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import { buildApp, startApp, type AppProcess } from "../support/app-process";
import { slowPdf } from "../support/document-fixtures";

/**
 * Reading documents shares the server between accounts
 * (docs/decisions/074-reading-documents-in-a-bounded-process.md), against the
 * built app served by remix-serve in a child process: text files are never
 * queued behind documents, an account's documents are read one at a time so
 * another account's go in between, and a full queue says so at once.
 * Assertions are about order (which answers came while which were still
 * being read), never about how long anything took on this machine.
 */

const firebase = admin();
let app: AppProcess | undefined;

beforeAll(async () => {
  await buildApp();
}, 300_000);

afterEach(async () => {
  // Killing the server ends its readers too (they leave when it goes).
  await app?.kill("SIGKILL");
  app = undefined;
});

afterAll(async () => {
  await firebase.close();
});

async function signedIn() {
  return sessionCookieFor(await createAccount(firebase));
}

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { error?: string; attachment?: { id: string } };
}

/** An upload whose answer can be looked at before it has come (`answer` stays undefined until then). */
function upload(server: AppProcess, cookie: string, name: string, body: Uint8Array | string) {
  const tracked: { answer?: Answer; done: Promise<Answer> } = {
    done: fetch(`${server.origin}/api/attachments`, {
      method: "POST",
      headers: {
        Origin: server.origin,
        Cookie: cookie,
        "Content-Type": "application/octet-stream",
        "X-File-Name": encodeURIComponent(name),
      },
      body: typeof body === "string" ? body : Buffer.from(body),
    }).then(async (response) => {
      tracked.answer = {
        status: response.status,
        retryAfter: response.headers.get("Retry-After"),
        body: (await response.json()) as Answer["body"],
      };
      return tracked.answer;
    }),
  };
  // Uploads still waiting when a test ends are cut off with the server: not a failure of this test.
  tracked.done.catch(() => undefined);
  return tracked;
}

/** The statuses of the uploads answered so far. */
function answered(uploads: Array<{ answer?: Answer }>): number[] {
  return uploads.flatMap((upload) => (upload.answer ? [upload.answer.status] : []));
}

/** The server's reader processes (its children), from /proc. */
function readers(server: AppProcess): number {
  const children = fs.readFileSync(`/proc/${server.pid}/task/${server.pid}/children`, "latin1").trim();
  return children ? children.split(/\s+/).length : 0;
}

async function until(condition: () => boolean, what: string) {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > 60_000) throw new Error(`Gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function smallPdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.addPage([400, 600]).drawText("A one-page PDF.", { x: 30, y: 550, size: 12, font });
  return pdf.save();
}

/**
 * Dozens of uploads at once each check the session and a rate limit in the
 * database: on a loaded machine the tests' one-second deadline would refuse
 * some as "unavailable" (503) and be counted as the queue's refusals. This
 * file is about the queue, not the deadline, so its app waits longer.
 */
const QUEUE_APP = { env: { BACKEND_TIMEOUT_MS: "15000" } };

describe("reading documents, shared between accounts", () => {
  it("answers another account's text file and PDF while one account's four slow PDFs are all still being read, then reads those in turn", async () => {
    const server = (app = await startApp(QUEUE_APP));
    const [first, second] = await Promise.all([signedIn(), signedIn()]);
    const slow = slowPdf(4);
    const pdf = await smallPdf();

    const piled = Array.from({ length: 4 }, (_, index) => upload(server, first, `slow-${index}.pdf`, slow));
    await until(() => readers(server) >= 1, "the first slow PDF to be read");

    const text = await upload(server, second, "note.txt", "Eighteen bytes of.").done;
    expect(text.status).toBe(201);
    expect(answered(piled)).toEqual([]);

    const document = await upload(server, second, "page.pdf", pdf).done;
    expect(document.status).toBe(201);
    expect(answered(piled)).toEqual([]);

    const answers = await Promise.all(piled.map((upload) => upload.done));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201]);
  }, 180_000);

  it("a document waiting for its reader holds no upload slot: with UPLOAD_ADMISSION_LIMIT=1 a text file goes in while it is read", async () => {
    const server = (app = await startApp({ env: { ...QUEUE_APP.env, UPLOAD_ADMISSION_LIMIT: "1" } }));
    const cookie = await signedIn();
    const slow = upload(server, cookie, "slow.pdf", slowPdf(4));
    await until(() => readers(server) >= 1, "the slow PDF to be read");

    expect((await upload(server, cookie, "note.txt", "Goes in meanwhile.").done).status).toBe(201);
    expect(answered([slow])).toEqual([]);
  }, 180_000);

  it("refuses an account's eleventh document at once (429), and documents past the queue's 32 waiting (503, Retry-After), while text still goes in", async () => {
    const server = (app = await startApp(QUEUE_APP));
    const cookies = await Promise.all(Array.from({ length: 5 }, () => signedIn()));
    // Each of these runs into the 20-second deadline: nothing leaves the queue while the test fills it.
    const verySlow = slowPdf(40);

    const first = Array.from({ length: 11 }, (_, index) => upload(server, cookies[0], `a-${index}.pdf`, verySlow));
    await until(() => answered(first).length > 0, "the first account's refusal");
    const refusedForAccount = first.filter((upload) => upload.answer);
    expect(refusedForAccount).toHaveLength(1);
    expect(refusedForAccount[0].answer).toEqual({
      status: 429,
      retryAfter: "10",
      body: { error: "You have 10 documents being read already. Wait until they are ready, then attach the rest." },
    });

    // Two readers and 32 waiting: 34 documents in all, 10 of them the first account's; 24 of the next 30 fit.
    const others = cookies
      .slice(1, 4)
      .flatMap((cookie, account) =>
        Array.from({ length: 10 }, (_, index) => upload(server, cookie, `${account}-${index}.pdf`, verySlow)),
      );
    await until(() => answered(others).length >= 6, "six refusals");
    const refused = others.filter((upload) => upload.answer);
    expect(refused).toHaveLength(6);
    for (const upload of refused) {
      expect(upload.answer).toEqual({
        status: 503,
        retryAfter: "10",
        body: { error: "The assistant is busy reading other documents. Please try again in a few seconds." },
      });
    }
    expect(readers(server)).toBe(2);

    // A text file doesn't wait for documents: it is stored while the queue is full.
    expect((await upload(server, cookies[4], "note.txt", "Still welcome.").done).status).toBe(201);
    expect(answered(first)).toEqual([429]);
  }, 180_000);
});
