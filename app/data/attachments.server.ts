import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { attachmentChunks, attachmentData, attachments, importedConversations } from "~/db/schema";
import type { AttachmentKind } from "~/conversation/attachment-types";
import type { Chunk } from "~/attachments/chunks";
import { writeForAccount, type Tx } from "./account-lock.server";

/**
 * Attachments in PostgreSQL (docs/decisions/071): their description, bytes,
 * whole text and passages. Every read names the owner: another user's file
 * looks like one that does not exist.
 */

export type { AttachmentKind };

export interface AttachmentRow {
  id: string;
  name: string;
  kind: AttachmentKind;
  mediaType: string;
  size: number;
  pages: number | null;
  chars: number;
  messageId: string | null;
}

/** A passage as cut (app/attachments/chunks.ts), with its unit vector (LLM_EMBEDDING_MODEL) if the provider gave one. */
export type NewChunk = Chunk & { embedding?: number[] };

export interface NewAttachment {
  id: string;
  uid: string;
  name: string;
  kind: AttachmentKind;
  mediaType: string;
  bytes: Uint8Array;
  pages?: number;
  text?: string;
  chunks: NewChunk[];
}

/** Files uploaded but never sent are removed after this long (they still count against storage until then). */
export const UNSENT_TTL_HOURS = 24;

/** Rows per INSERT of passages (a 200-page PDF has a few hundred). */
const CHUNK_BATCH = 200;

const described = {
  id: attachments.id,
  name: attachments.name,
  kind: attachments.kind,
  mediaType: attachments.mediaType,
  size: attachments.size,
  pages: attachments.pages,
  chars: attachments.chars,
  messageId: attachments.messageId,
};

/**
 * Stores a file with its text and passages, all or nothing, if the user's
 * storage has room for it. The user's uploads are serialised (a lock per
 * user) so that two at once cannot both take the last room; files left
 * unsent for a day go first.
 */
export async function storeAttachment(
  db: Db,
  file: NewAttachment,
  storageLimitBytes: number,
): Promise<{ ok: true; usedBytes: number } | { ok: false; usedBytes: number }> {
  return writeForAccount(db, file.uid, async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('attachments'), hashtext(${file.uid}))`);
    await tx
      .delete(attachments)
      .where(
        and(
          eq(attachments.uid, file.uid),
          isNull(attachments.messageId),
          sql`${attachments.createdAt} < now() - make_interval(hours => ${UNSENT_TTL_HOURS})`,
        ),
      );
    const usedBytes = await storageUsed(tx, file.uid);
    if (usedBytes + file.bytes.byteLength > storageLimitBytes) return { ok: false, usedBytes };
    await tx.insert(attachments).values({
      id: file.id,
      uid: file.uid,
      name: file.name,
      kind: file.kind,
      mediaType: file.mediaType,
      size: file.bytes.byteLength,
      pages: file.pages ?? null,
      chars: file.text?.length ?? 0,
    });
    await tx
      .insert(attachmentData)
      .values({ attachmentId: file.id, bytes: Buffer.from(file.bytes), text: file.text ?? null });
    for (let at = 0; at < file.chunks.length; at += CHUNK_BATCH) {
      await tx.insert(attachmentChunks).values(
        file.chunks.slice(at, at + CHUNK_BATCH).map((chunk) => ({
          attachmentId: file.id,
          ordinal: chunk.ordinal,
          text: chunk.text,
          pageFrom: chunk.pageFrom ?? null,
          pageTo: chunk.pageTo ?? null,
          lineFrom: chunk.lineFrom ?? null,
          lineTo: chunk.lineTo ?? null,
          embedding: chunk.embedding ?? null,
        })),
      );
    }
    return { ok: true, usedBytes: usedBytes + file.bytes.byteLength };
  });
}

/**
 * Bytes of all the user's files, sent or waiting to be, and of the chats they
 * imported (docs/decisions/104): both fill the same storage.
 */
export async function storageUsed(db: Db | Tx, uid: string): Promise<number> {
  const [row] = await db
    .select({
      used: sql<string>`coalesce(sum(${attachments.size}), 0) + (select coalesce(sum(${importedConversations.bytes}), 0) from ${importedConversations} where ${importedConversations.uid} = ${uid})`,
    })
    .from(attachments)
    .where(eq(attachments.uid, uid));
  return Number(row?.used ?? 0);
}

/** The user's attachments with these ids (any the user does not own are simply missing). */
export async function findAttachments(db: Db, uid: string, ids: readonly string[]): Promise<AttachmentRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select(described)
    .from(attachments)
    .where(and(eq(attachments.uid, uid), inArray(attachments.id, [...ids])));
  return rows as AttachmentRow[];
}

/** The attachments sent with these messages, in upload order. */
export async function attachmentsOfMessages(
  db: Db,
  uid: string,
  messageIds: readonly string[],
): Promise<AttachmentRow[]> {
  if (messageIds.length === 0) return [];
  const rows = await db
    .select(described)
    .from(attachments)
    .where(and(eq(attachments.uid, uid), inArray(attachments.messageId, [...messageIds])))
    .orderBy(asc(attachments.createdAt));
  return rows as AttachmentRow[];
}

/** A file to download: its owner only. */
export async function getAttachmentFile(
  db: Db,
  uid: string,
  id: string,
): Promise<{ name: string; mediaType: string; kind: AttachmentKind; bytes: Buffer } | undefined> {
  const [row] = await db
    .select({
      name: attachments.name,
      mediaType: attachments.mediaType,
      kind: attachments.kind,
      bytes: attachmentData.bytes,
    })
    .from(attachments)
    .innerJoin(attachmentData, eq(attachmentData.attachmentId, attachments.id))
    .where(and(eq(attachments.uid, uid), eq(attachments.id, id)));
  return row as { name: string; mediaType: string; kind: AttachmentKind; bytes: Buffer } | undefined;
}

/** Removes a file still waiting in the composer; a sent one goes only with its message. */
export async function deleteUnsentAttachment(db: Db, uid: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(attachments)
    .where(and(eq(attachments.uid, uid), eq(attachments.id, id), isNull(attachments.messageId)))
    .returning({ id: attachments.id });
  return deleted.length > 0;
}

/**
 * For the model: images' bytes, and documents' whole text when it is at most
 * `wholeMaxChars` long (a long document's text is not read: its passages are),
 * with every document's length.
 */
export async function attachmentContents(
  db: Db,
  uid: string,
  ids: readonly string[],
  wholeMaxChars: number,
): Promise<Map<string, { bytes?: Buffer; text?: string; chars: number }>> {
  const found = new Map<string, { bytes?: Buffer; text?: string; chars: number }>();
  if (ids.length === 0) return found;
  const rows = await db
    .select({
      id: attachments.id,
      chars: attachments.chars,
      bytes: sql<Buffer | null>`case when ${attachments.kind} = 'image' then ${attachmentData.bytes} end`,
      text: sql<string | null>`case when ${attachments.chars} <= ${wholeMaxChars} then ${attachmentData.text} end`,
    })
    .from(attachments)
    .innerJoin(attachmentData, eq(attachmentData.attachmentId, attachments.id))
    .where(and(eq(attachments.uid, uid), inArray(attachments.id, [...ids])));
  for (const row of rows)
    found.set(row.id, { bytes: row.bytes ?? undefined, text: row.text ?? undefined, chars: row.chars });
  return found;
}

export type FoundPassage = {
  attachmentId: string;
  ordinal: number;
  text: string;
  pageFrom: number | null;
  pageTo: number | null;
  lineFrom: number | null;
  lineTo: number | null;
  rank: number;
};

/** Candidates each ranking contributes before the two are fused. */
const CANDIDATES = 50;
/** Reciprocal rank fusion's constant: how much a top rank outweighs a lower one. */
const RRF_K = 60;

/**
 * The passages of these documents that best answer the question. PostgreSQL
 * full-text search ranks them by words (English stemming, any of the
 * question's words: they are rarely all in one passage; ts_rank_cd); with the
 * question's vector (LLM_EMBEDDING_MODEL) they are ranked by meaning too
 * (cosine of unit vectors, computed here over the conversation's passages),
 * and the two rankings are fused by reciprocal rank (1 / (60 + rank), summed).
 * Only the account's own documents are searched, whatever ids it names.
 */
export async function searchPassages(
  db: Db,
  uid: string,
  ids: readonly string[],
  question: string,
  limit: number,
  vector?: readonly number[],
): Promise<FoundPassage[]> {
  if (ids.length === 0) return [];
  const named = sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  const documents = sql`select ${attachments.id} from ${attachments} where ${attachments.uid} = ${uid} and ${attachments.id} in (${named})`;
  const questionVector = vector ? `{${vector.join(",")}}` : null;
  const result = await db.execute<FoundPassage>(sql`
    with q as (
      select to_tsquery('english', string_agg(quote_literal(lexeme), ' | ')) as query
      from unnest(tsvector_to_array(to_tsvector('english', ${question}))) as lexeme
    ),
    lexical as (
      select c.attachment_id, c.ordinal,
        row_number() over (order by ts_rank_cd(to_tsvector('english', c.text), q.query) desc, c.ordinal) as r
      from ${attachmentChunks} c, q
      where c.attachment_id in (${documents}) and q.query is not null and to_tsvector('english', c.text) @@ q.query
    ),
    semantic as (
      select s.attachment_id, s.ordinal, row_number() over (order by s.score desc, s.ordinal) as r
      from (
        select c.attachment_id, c.ordinal, (select sum(a * b) from unnest(c.embedding, ${questionVector}::real[]) as t(a, b)) as score
        from ${attachmentChunks} c
        where ${questionVector}::real[] is not null and c.attachment_id in (${documents}) and c.embedding is not null
      ) s
    ),
    fused as (
      select attachment_id, ordinal, sum(1.0 / (${RRF_K} + r)) as rank
      from (select * from lexical where r <= ${CANDIDATES} union all select * from semantic where r <= ${CANDIDATES}) ranked
      group by attachment_id, ordinal
    )
    select c.attachment_id as "attachmentId", c.ordinal, c.text, c.page_from as "pageFrom", c.page_to as "pageTo",
      c.line_from as "lineFrom", c.line_to as "lineTo", f.rank
    from fused f join ${attachmentChunks} c on c.attachment_id = f.attachment_id and c.ordinal = f.ordinal
    order by f.rank desc, c.attachment_id, c.ordinal
    limit ${limit}
  `);
  return result.rows.map((row) => ({ ...row, rank: Number(row.rank) }));
}

/** The first passages of the account's documents among `ids`, for a question with no searchable word ("summarise this"). */
export async function firstPassages(
  db: Db,
  uid: string,
  ids: readonly string[],
  limit: number,
): Promise<FoundPassage[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({
      attachmentId: attachmentChunks.attachmentId,
      ordinal: attachmentChunks.ordinal,
      text: attachmentChunks.text,
      pageFrom: attachmentChunks.pageFrom,
      pageTo: attachmentChunks.pageTo,
      lineFrom: attachmentChunks.lineFrom,
      lineTo: attachmentChunks.lineTo,
    })
    .from(attachmentChunks)
    .innerJoin(attachments, eq(attachments.id, attachmentChunks.attachmentId))
    .where(and(eq(attachments.uid, uid), inArray(attachmentChunks.attachmentId, [...ids])))
    .orderBy(asc(attachmentChunks.ordinal), asc(attachmentChunks.attachmentId))
    .limit(limit);
  return rows.map((row) => ({ ...row, rank: 0 }));
}
