import { once } from "node:events";
import fs from "node:fs";
import http from "node:http";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admin, createAccount, sessionCookieFor } from "../support/app-env";
import { buildApp, startApp, type AppProcess } from "../support/app-process";
import { docx, docxSizeLieBomb, pdfStreamBomb } from "../support/document-fixtures";

/**
 * Hostile uploads against the built app served by remix-serve in a child
 * process, where the server's memory can be read from /proc: documents that
 * inflate to 1 GiB are refused and leave the server's memory where it was
 * (they are read in a bounded child process of their own, after what they
 * inflate to is counted: docs/decisions/074-reading-documents-in-a-bounded-process.md),
 * and a chunked upload over the role's cap gets its JSON 413 rather than a
 * reset connection.
 */

const firebase = admin();
let app: AppProcess;
let bombs: { docx: Uint8Array; pdf: Uint8Array };

beforeAll(async () => {
  bombs = { docx: docxSizeLieBomb(), pdf: pdfStreamBomb() };
  await buildApp();
  app = await startApp({ env: { ATTACHMENT_MAX_MB: "small=1" } });
}, 300_000);

afterAll(async () => {
  await app?.kill("SIGKILL");
  await firebase.close();
});

async function signedIn(role?: string) {
  return sessionCookieFor(await createAccount(firebase, { role }));
}

async function upload(cookie: string, name: string, body: Uint8Array) {
  const response = await fetch(`${app.origin}/api/attachments`, {
    method: "POST",
    headers: {
      Origin: app.origin,
      Cookie: cookie,
      "Content-Type": "application/octet-stream",
      "X-File-Name": encodeURIComponent(name),
    },
    body: Buffer.from(body),
  });
  return { status: response.status, body: (await response.json()) as { error?: string } };
}

/** A process's resident memory in MB, as the kernel counts it. */
function residentMb(pid: number): number {
  const kilobytes = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "latin1"))?.[1];
  return Number(kilobytes) / 1024;
}

async function smallPdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  pdf.addPage([400, 600]).drawText("A small, ordinary PDF.", { x: 30, y: 550, size: 12, font });
  return pdf.save();
}

describe("documents that inflate to 1 GiB", () => {
  it("are refused with a clear 400, and the server's memory grows by less than 100 MB", async () => {
    const [first, second] = await Promise.all([signedIn(), signedIn()]);
    // An ordinary PDF and Word document first: the server's reading code has run once before memory is measured.
    expect((await upload(first, "warm-up.pdf", await smallPdf())).status).toBe(201);
    expect((await upload(first, "warm-up.docx", docx(["An ordinary document."]))).status).toBe(201);

    const before = residentMb(app.pid);
    let peak = before;
    const watch = setInterval(() => (peak = Math.max(peak, residentMb(app.pid))), 20);
    // From two accounts, so that both are read at once.
    const [docxAnswer, pdfAnswer] = await Promise.all([
      upload(first, "report.docx", bombs.docx),
      upload(second, "report.pdf", bombs.pdf),
    ]);
    clearInterval(watch);
    const after = residentMb(app.pid);

    expect(docxAnswer).toEqual({
      status: 400,
      body: { error: '"report.docx": This Word document is too large to read once unpacked.' },
    });
    expect(pdfAnswer).toEqual({
      status: 400,
      body: { error: '"report.pdf": This PDF is too large to read once unpacked.' },
    });
    const figures = `RSS ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB at most, ${after.toFixed(0)} MB after`;
    expect(after - before, figures).toBeLessThan(100);
    expect(peak - before, figures).toBeLessThan(100);
    // The server still reads an ordinary document.
    expect((await upload(second, "after.pdf", await smallPdf())).status).toBe(201);
  }, 120_000);
});

/** 3 MB of text in 64 KB chunks, with no Content-Length, as a client that doesn't know the cap sends it; the answer it gets. */
function chunkedUpload(cookie: string | undefined): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${app.origin}/api/attachments`, {
      method: "POST",
      headers: {
        Origin: app.origin,
        ...(cookie ? { Cookie: cookie } : {}),
        "Content-Type": "application/octet-stream",
        "X-File-Name": "big.txt",
        "Transfer-Encoding": "chunked",
      },
    });
    request.once("error", reject);
    request.once("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.once("end", () => resolve({ status: response.statusCode!, body }));
      response.once("error", reject);
    });
    void (async () => {
      const chunk = Buffer.alloc(64 * 1024, "a");
      for (let sent = 0; sent < 3 * 1024 * 1024; sent += chunk.length) {
        if (!request.write(chunk)) await once(request, "drain");
      }
      request.end();
    })().catch(reject);
  });
}

describe("a chunked upload refused", () => {
  it("over the role's cap (1 MB here) gets the JSON 413, not a reset connection", async () => {
    const answer = await chunkedUpload(await signedIn("small"));
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({
      error: '"big.txt" is too large: files can be at most 1.0 MB on your plan.',
    });
  });

  it("before it is read (not logged in) gets its JSON answer too", async () => {
    const answer = await chunkedUpload(undefined);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toEqual({ error: "Please log in." });
  });
});
