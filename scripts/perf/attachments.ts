import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { docx as docxOf, docxSizeLieBomb, pdfStreamBomb, slowPdf } from "../../tests/support/document-fixtures";
import {
  freshDatabase,
  machineLine,
  option,
  percentile,
  rssMb,
  startAppUnderTest,
  writeBenchmarks,
  type AppUnderTest,
} from "./app-under-test";
import { firstTextMs } from "./first-token";

/**
 * `npm run bench -- --attachments`: files in the chat (docs/decisions/071), one
 * instance on a fresh database on the PostgreSQL server (or embedded PGlite with
 * `--database-url ""`), the scripted model answering at once. Writes docs/benchmarks.md
 * ("Attachments").
 *
 * 1. Upload throughput: `--uploads` uploads of a `--upload-mb` MB image (a PNG header and
 *    random bytes: stored, not parsed), MB/s per upload.
 * 2. Indexing: a 200-page PDF (about 1,200 characters a page), uploaded `--pdf-runs` times:
 *    from the first byte sent to the stored answer (parsing in the worker, passages, one
 *    transaction).
 * 3. First-token overhead of retrieval: one conversation started with a 50-page PDF attached
 *    (too long to send whole: its passages are searched for every message) and one without;
 *    `--messages` follow-up messages in each, alternately, each timed from the request to the
 *    first text chunk. Overhead = median with the document − median without.
 * 4. Memory under bombs (docs/decisions/074): `--bombs` documents that inflate to 1 GiB (a .docx
 *    whose headers under-state its size, a PDF with one 1 GiB content stream; alternately), each
 *    from an account of its own, sent at once; the server's resident memory before (after an
 *    ordinary PDF and .docx were read), at most while they are answered, and after.
 * 5. Fairness: while one account's 4 slow PDFs are read, another account's 18-byte text file
 *    (`--fair-runs` times) and a one-page PDF, each timed from the request to the answer.
 *
 *   npm run bench -- --attachments [--uploads 5] [--upload-mb 15] [--pdf-runs 3] [--messages 30]
 *                   [--bombs 10] [--fair-runs 5] [--database-url postgresql://postgres@127.0.0.1:5432/test]
 */
const serverDatabaseUrl = option("database-url", "postgresql://postgres@127.0.0.1:5432/test");
const uploads = Number(option("uploads", "5"));
const uploadMb = Number(option("upload-mb", "15"));
const pdfRuns = Number(option("pdf-runs", "3"));
const messageCount = Number(option("messages", "30"));
const bombCount = Number(option("bombs", "10"));
const fairRuns = Number(option("fair-runs", "5"));
const MODEL = "bench-model";

const TOPICS = [
  "harbours",
  "ledgers",
  "glaciers",
  "orchards",
  "railways",
  "comets",
  "violins",
  "deserts",
  "bridges",
  "bees",
];

/** A PDF of `pages` pages of varied prose, about 1,200 characters each. */
async function pdfOf(pages: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let page = 1; page <= pages; page += 1) {
    const topic = TOPICS[page % TOPICS.length];
    const text = Array.from(
      { length: 12 },
      (_, line) =>
        `Page ${page}, note ${line + 1}: the study of ${topic} records measurement ${page * 13 + line} and its seasonal change.`,
    ).join("\n");
    pdf.addPage([595, 842]).drawText(text, { x: 40, y: 800, size: 9, font, lineHeight: 14, maxWidth: 515 });
  }
  return pdf.save();
}

/** One upload as the composer sends it (the name in X-File-Name), timed to its answer. */
async function send(app: AppUnderTest, cookie: string, name: string, body: Uint8Array | string) {
  const started = performance.now();
  const response = await fetch(`${app.baseUrl}/api/attachments`, {
    method: "POST",
    headers: {
      Origin: app.baseUrl,
      cookie,
      "Content-Type": "application/octet-stream",
      "X-File-Name": encodeURIComponent(name),
    },
    body: typeof body === "string" ? body : Buffer.from(body),
  });
  const json = (await response.json()) as { attachment?: { id: string }; error?: string };
  return { status: response.status, id: json.attachment?.id, error: json.error, ms: performance.now() - started };
}

/** 4. The server's memory around `--bombs` documents that inflate to 1 GiB, sent at once. */
async function measureBombs(app: AppUnderTest, upload: (name: string, body: Uint8Array) => Promise<unknown>) {
  const [docx, pdf] = [docxSizeLieBomb(), pdfStreamBomb()];
  const accounts = await Promise.all(
    Array.from({ length: bombCount }, (_, index) => app.signIn("premium", `bomb-${index}`)),
  );
  // The reading code has run once before memory is measured.
  await upload("warm-up.pdf", await pdfOf(1));
  await upload("warm-up.docx", docxOf(["An ordinary document."]));
  const before = rssMb(app.server.pid!);
  let peak = before;
  const watch = setInterval(() => (peak = Math.max(peak, rssMb(app.server.pid!))), 20);
  const started = performance.now();
  const answers = await Promise.all(
    accounts.map((account, index) =>
      send(app, account.cookie, index % 2 ? "bomb.pdf" : "bomb.docx", index % 2 ? pdf : docx),
    ),
  );
  const ms = performance.now() - started;
  clearInterval(watch);
  const refused = answers.filter(
    (answer) => answer.status === 400 && answer.error?.includes("too large to read once unpacked"),
  ).length;
  return { before, peak, after: rssMb(app.server.pid!), refused, ms };
}

/** 5. Another account's text file and one-page PDF while one account's 4 slow PDFs are read. */
async function measureFairness(app: AppUnderTest) {
  const [piler, other] = [await app.signIn("premium", "piler"), await app.signIn("premium", "other")];
  const [slow, onePage] = [slowPdf(4), await pdfOf(1)];
  const started = performance.now();
  const piled = Array.from({ length: 4 }, (_, index) => send(app, piler.cookie, `slow-${index}.pdf`, slow));
  // The first slow PDF is being read once the server has a reader process.
  while (!fs.readFileSync(`/proc/${app.server.pid}/task/${app.server.pid}/children`, "latin1").trim())
    await new Promise((resolve) => setTimeout(resolve, 20));
  const textMs: number[] = [];
  for (let run = 0; run < fairRuns; run += 1)
    textMs.push((await send(app, other.cookie, `note-${run}.txt`, "Eighteen bytes of.")).ms);
  const pdfMs = (await send(app, other.cookie, "page.pdf", onePage)).ms;
  const answers = await Promise.all(piled);
  if (answers.some((answer) => answer.status !== 201))
    throw new Error(`slow PDFs: ${answers.map((answer) => answer.status).join(", ")}`);
  return { textMs, pdfMs, piledMs: performance.now() - started };
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "–");

export async function benchAttachments(): Promise<void> {
  console.log(
    `Attachments: ${uploads} uploads of ${uploadMb} MB, a 200-page PDF ${pdfRuns}×, ${messageCount} messages with and without a 50-page PDF…`,
  );
  const database = serverDatabaseUrl ? await freshDatabase(serverDatabaseUrl, "attachments") : undefined;
  const app = await startAppUnderTest({
    name: "attachments",
    models: [MODEL],
    databaseUrl: database?.url,
    logFile: path.join(os.tmpdir(), `nuvara-bench-attachments-${process.pid}.log`),
    env: {
      LOG_LEVEL: "warn",
      CHAT_RATE_LIMIT_PER_MINUTE: "10000",
      QUOTA_DAILY_MESSAGES: "*=unlimited",
      ATTACHMENT_MAX_MB: "*=100",
      ATTACHMENT_STORAGE_MB: "*=100000",
    },
  });
  try {
    const { cookie } = await app.signIn("premium", "attach");
    const upload = async (name: string, body: Uint8Array) => {
      const sent = await send(app, cookie, name, body);
      if (sent.status !== 201 || !sent.id) throw new Error(`upload of ${name}: ${sent.status} ${sent.error ?? ""}`);
      return { id: sent.id, ms: sent.ms };
    };

    // 1. Upload throughput.
    const image = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      randomBytes(uploadMb * 1024 * 1024 - 8),
    ]);
    await upload("warm-up.png", image.subarray(0, 1024));
    const rates: number[] = [];
    for (let i = 0; i < uploads; i += 1) {
      const { ms } = await upload(`photo-${i}.png`, image);
      rates.push(uploadMb / (ms / 1000));
    }

    // 2. Indexing a 200-page PDF.
    const big = await pdfOf(200);
    const indexing: number[] = [];
    for (let i = 0; i < pdfRuns; i += 1) indexing.push((await upload(`handbook-${i}.pdf`, big)).ms);

    // 3. First-token overhead of retrieval.
    const fifty = await upload("report.pdf", await pdfOf(50));
    const message = (text: string) => ({ id: randomUUID(), role: "user", parts: [{ type: "text", text }] });
    const withDocument = randomUUID();
    const without = randomUUID();
    await firstTextMs(app.baseUrl, cookie, {
      conversationId: withDocument,
      create: true,
      message: message("Here is the report."),
      model: MODEL,
      attachments: [fifty.id],
    });
    await firstTextMs(app.baseUrl, cookie, {
      conversationId: without,
      create: true,
      message: message("Hello."),
      model: MODEL,
    });
    const timed = { with: [] as number[], without: [] as number[] };
    for (let i = 0; i < messageCount; i += 1) {
      const text = `What does the report say about ${TOPICS[i % TOPICS.length]} and measurement ${i * 7}?`;
      timed.with.push(
        await firstTextMs(app.baseUrl, cookie, { conversationId: withDocument, message: message(text), model: MODEL }),
      );
      timed.without.push(
        await firstTextMs(app.baseUrl, cookie, { conversationId: without, message: message(text), model: MODEL }),
      );
    }
    const overhead = median(timed.with) - median(timed.without);

    const bombs = await measureBombs(app, upload);
    const fair = await measureFairness(app);

    const store = database ? "the PostgreSQL server (a fresh database)" : "embedded PGlite";
    const report = [
      "## Attachments",
      "",
      `\`npm run bench -- --attachments\` on ${new Date().toISOString().slice(0, 10)}, ${machineLine()}, one instance on ${store}, ` +
        "the scripted model answering at once.",
      "",
      "| Figure | Value |",
      "|---|---|",
      `| Upload throughput (${uploadMb} MB image, stored as it is; median of ${uploads}) | ${fixed(median(rates))} MB/s (min ${fixed(Math.min(...rates))}, max ${fixed(Math.max(...rates))}) |`,
      `| Indexing a 200-page PDF (${(big.byteLength / 1024).toFixed(0)} KB: upload, parse, passages, store; median of ${pdfRuns}) | ${fixed(median(indexing), 0)} ms |`,
      `| First text chunk, follow-up with a 50-page PDF in the conversation (median of ${messageCount}) | ${fixed(median(timed.with))} ms (p95 ${fixed(
        percentile(
          [...timed.with].sort((a, b) => a - b),
          95,
        ),
      )}) |`,
      `| First text chunk, same without a document (median of ${messageCount}) | ${fixed(median(timed.without))} ms (p95 ${fixed(
        percentile(
          [...timed.without].sort((a, b) => a - b),
          95,
        ),
      )}) |`,
      `| Retrieval overhead on the first token (target ≤ 30 ms on the PostgreSQL server) | ${fixed(overhead)} ms |`,
      `| Server memory, ${bombCount} documents that inflate to 1 GiB sent at once (half .docx, half PDF): RSS before / at most / after | ${fixed(bombs.before, 0)} MB / ${fixed(bombs.peak, 0)} MB / ${fixed(bombs.after, 0)} MB (${bombs.refused} of ${bombCount} refused "too large to read once unpacked", all answered in ${fixed(bombs.ms / 1000)} s) |`,
      `| Another account's 18-byte text file while one account's 4 slow PDFs are read (target ≤ 1 s; median of ${fairRuns}) | ${fixed(median(fair.textMs), 0)} ms (max ${fixed(Math.max(...fair.textMs), 0)}) |`,
      `| Another account's one-page PDF, same | ${fixed(fair.pdfMs, 0)} ms (the 4 slow PDFs, read one after another: ${fixed(fair.piledMs / 1000)} s) |`,
      "",
      "The last three rows are ADR 074's: a bomb is a 1 MB .docx whose headers declare 1,000 bytes for 1 GiB, or a 2 MB PDF " +
        "with one 1 GiB content stream; each is refused by its reader process once what it inflates to has been counted, so the " +
        "server's memory moves only by the uploads it holds. A slow PDF runs a million operators on each of its pages " +
        "(tests/support/document-fixtures.ts `slowPdf`); an account's documents are read one at a time, another account's go in between.",
      "",
    ].join("\n");
    console.log(report);
    if (!process.argv.includes("--no-write")) writeBenchmarks("attachments", report);
  } finally {
    await app.stop();
    await database?.drop();
  }
}
