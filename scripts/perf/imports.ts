import { randomUUID } from "node:crypto";
import { claimJob, createImportJob, latestImport, runJob } from "~/data/import/import-jobs.server";
import { readExport } from "~/data/import/read-export.server";
import { openDatabase } from "~/db/client.server";
import { chatgptExport, exportZip } from "../../tests/support/import-fixtures";
import { freshDatabase, machineLine, option, writeBenchmarks } from "./app-under-test";

/**
 * `npm run bench -- --imports`: importing a ChatGPT export of 5,000
 * conversations (docs/decisions/104), in this process, on a fresh database on
 * the PostgreSQL server (or embedded PGlite through `--database-url` of a
 * PGlite socket). The export is generated (each conversation: `--pairs`
 * exchanges of `--words` words a message, the last reply regenerated once) and
 * zipped; then timed as the server does it: the upload read and checked whole
 * (unzip, JSON, zod, trees), the job and its items stored, and the background
 * job run to its end. Peak memory: the process's resident set, sampled every
 * 20 ms, above what it held before the file was read.
 *
 *   npm run bench -- --imports [--conversations 5000] [--pairs 6] [--words 120] [--database-url postgresql://postgres@127.0.0.1:5432/test]
 */
const serverDatabaseUrl = option("database-url", "postgresql://postgres@127.0.0.1:5432/test");
const count = Number(option("conversations", "5000"));
const pairs = Number(option("pairs", "6"));
const words = Number(option("words", "120"));
const MB = 1024 * 1024;

export async function benchImports(): Promise<void> {
  const database = await freshDatabase(serverDatabaseUrl, "imports");
  const db = await openDatabase(database.url, { timeoutMs: 60_000 });
  try {
    const conversations = chatgptExport(count, pairs, words);
    const jsonMb = JSON.stringify(conversations).length / MB;
    const zip = exportZip(conversations);
    const zipMb = zip.byteLength / MB;
    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);

    const started = performance.now();
    const read = readExport(zip);
    const readMs = performance.now() - started;
    const uid = `bench-${randomUUID()}`;
    const job = await createImportJob(db, {
      uid,
      source: read.source,
      fileName: "conversations.zip",
      items: read.items,
      storageLimitBytes: 10 * 1024 * MB,
    });
    const storedMs = performance.now() - started;
    const claimed = await claimJob(db, job.id);
    const status = await runJob(db, claimed!);
    const totalMs = performance.now() - started;
    clearInterval(sampler);
    const result = await latestImport(db, uid);

    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    const report = `## Importing a ChatGPT export

${count.toLocaleString("en-US")} conversations (${(count * (pairs * 2 + 1)).toLocaleString("en-US")} messages, each with a regenerated reply; about ${words} words a message): a conversations.json of ${jsonMb.toFixed(0)} MB, zipped to ${zipMb.toFixed(1)} MB
(the generated words repeat, so they compress far better than real ones; the upload bound is on the zip, the unzip bound on the JSON);
in one process on the PostgreSQL server, ${machineLine()} (the machine is shared with other engineers' work and
was loaded: the figures are an upper bound). \`npm run bench -- --imports\` (scripts/perf/imports.ts).

| step | time |
|---|---|
| read and check the upload (unzip, JSON, shapes, trees) | ${seconds(readMs)} s |
| store the job and its ${count.toLocaleString("en-US")} items | ${seconds(storedMs - readMs)} s |
| the background job, to its end | ${seconds(totalMs - storedMs)} s (${Math.round((count / (totalMs - storedMs)) * 1000)} conversations/s) |
| **total** | **${seconds(totalMs)} s** |

Peak memory: ${((peak - baseline) / MB).toFixed(0)} MB above the process's ${(baseline / MB).toFixed(0)} MB before the upload was read
(resident set, sampled every 20 ms; the whole file is parsed at once, docs/decisions/104).
Result: ${status}, ${result?.imported.toLocaleString("en-US")} imported, ${result?.skipped} skipped.
`;
    console.log(report);
    if (!process.argv.includes("--no-write")) writeBenchmarks("imports", report);
  } finally {
    await db.$client.end();
    await database.drop();
  }
}
