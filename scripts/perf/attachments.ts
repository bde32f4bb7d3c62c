import { randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { freshDatabase, machineLine, option, percentile, startAppUnderTest, writeBenchmarks } from "./app-under-test";
import { firstTextMs } from "./first-token";

/**
 * `npm run bench -- --attachments`: files in the chat (issue 12, docs/decisions/071), one
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
 *
 *   npm run bench -- --attachments [--uploads 5] [--upload-mb 15] [--pdf-runs 3] [--messages 30]
 *                   [--database-url postgresql://postgres@127.0.0.1:5432/test]
 */
const serverDatabaseUrl = option("database-url", "postgresql://postgres@127.0.0.1:5432/test");
const uploads = Number(option("uploads", "5"));
const uploadMb = Number(option("upload-mb", "15"));
const pdfRuns = Number(option("pdf-runs", "3"));
const messageCount = Number(option("messages", "30"));
const MODEL = "bench-model";

const TOPICS = ["harbours", "ledgers", "glaciers", "orchards", "railways", "comets", "violins", "deserts", "bridges", "bees"];

/** A PDF of `pages` pages of varied prose, about 1,200 characters each. */
async function pdfOf(pages: number): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let page = 1; page <= pages; page += 1) {
    const topic = TOPICS[page % TOPICS.length];
    const text = Array.from(
      { length: 12 },
      (_, line) => `Page ${page}, note ${line + 1}: the study of ${topic} records measurement ${page * 13 + line} and its seasonal change.`,
    ).join("\n");
    pdf.addPage([595, 842]).drawText(text, { x: 40, y: 800, size: 9, font, lineHeight: 14, maxWidth: 515 });
  }
  return pdf.save();
}

const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);
const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "–");

export async function benchAttachments(): Promise<void> {
  console.log(`Attachments: ${uploads} uploads of ${uploadMb} MB, a 200-page PDF ${pdfRuns}×, ${messageCount} messages with and without a 50-page PDF…`);
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
      const started = performance.now();
      const response = await fetch(`${app.baseUrl}/api/attachments?name=${encodeURIComponent(name)}`, {
        method: "POST",
        headers: { Origin: app.baseUrl, cookie, "Content-Type": "application/octet-stream" },
        body: Buffer.from(body),
      });
      const json = (await response.json()) as { attachment?: { id: string }; error?: string };
      if (response.status !== 201 || !json.attachment) throw new Error(`upload of ${name}: ${response.status} ${json.error ?? ""}`);
      return { id: json.attachment.id, ms: performance.now() - started };
    };

    // 1. Upload throughput.
    const image = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(uploadMb * 1024 * 1024 - 8)]);
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
    await firstTextMs(app.baseUrl, cookie, { conversationId: withDocument, create: true, message: message("Here is the report."), model: MODEL, attachments: [fifty.id] });
    await firstTextMs(app.baseUrl, cookie, { conversationId: without, create: true, message: message("Hello."), model: MODEL });
    const timed = { with: [] as number[], without: [] as number[] };
    for (let i = 0; i < messageCount; i += 1) {
      const text = `What does the report say about ${TOPICS[i % TOPICS.length]} and measurement ${i * 7}?`;
      timed.with.push(await firstTextMs(app.baseUrl, cookie, { conversationId: withDocument, message: message(text), model: MODEL }));
      timed.without.push(await firstTextMs(app.baseUrl, cookie, { conversationId: without, message: message(text), model: MODEL }));
    }
    const overhead = median(timed.with) - median(timed.without);

    const store = database ? "the PostgreSQL server (a fresh database)" : "embedded PGlite";
    const report = [
      "## Attachments (issue 12)",
      "",
      `\`npm run bench -- --attachments\` on ${new Date().toISOString().slice(0, 10)}, ${machineLine()}, one instance on ${store}, ` +
        "the scripted model answering at once.",
      "",
      "| Figure | Value |",
      "|---|---|",
      `| Upload throughput (${uploadMb} MB image, stored as it is; median of ${uploads}) | ${fixed(median(rates))} MB/s (min ${fixed(Math.min(...rates))}, max ${fixed(Math.max(...rates))}) |`,
      `| Indexing a 200-page PDF (${(big.byteLength / 1024).toFixed(0)} KB: upload, parse, passages, store; median of ${pdfRuns}) | ${fixed(median(indexing), 0)} ms |`,
      `| First text chunk, follow-up with a 50-page PDF in the conversation (median of ${messageCount}) | ${fixed(median(timed.with))} ms (p95 ${fixed(percentile([...timed.with].sort((a, b) => a - b), 95))}) |`,
      `| First text chunk, same without a document (median of ${messageCount}) | ${fixed(median(timed.without))} ms (p95 ${fixed(percentile([...timed.without].sort((a, b) => a - b), 95))}) |`,
      `| Retrieval overhead on the first token (target ≤ 30 ms on the PostgreSQL server) | ${fixed(overhead)} ms |`,
      "",
    ].join("\n");
    console.log(report);
    if (!process.argv.includes("--no-write")) writeBenchmarks("attachments", report);
  } finally {
    await app.stop();
    await database?.drop();
  }
}
