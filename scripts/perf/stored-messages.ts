import pg from "pg";

/** A message the app confirmed as stored (its stream's data-saved part), as `npm run load` sent it. */
export interface ConfirmedMessage {
  uid: string;
  conversationId: string;
  userMessageId: string;
  replyId: string;
  text: string;
}

/** One simulated sender: how many of its messages the app confirmed, and whether its role is capped. */
export interface Sender {
  index: number;
  uid: string;
  confirmed: number;
  capped?: boolean;
}

/**
 * What PostgreSQL holds for the run's senders, against what the app
 * confirmed: every confirmed message stored with its echo reply, no row
 * beyond them, each sender's usage_daily count equal to their confirmed
 * messages, no capped sender over `cappedQuota`, no quota reservation held.
 */
export async function checkStoredMessages(
  databaseUrl: string,
  senders: Sender[],
  confirmed: ConfirmedMessage[],
  cappedQuota = Infinity,
) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const uids = senders.map((sender) => sender.uid);
    const rows = await client.query<{
      id: string;
      uid: string;
      conversation_id: string;
      role: string;
      content: string;
      status: string | null;
    }>(
      `select m.id, c.uid, m.conversation_id, m.role, m.content, m.status
       from messages m join conversations c on c.id = m.conversation_id
       where c.uid = any($1::text[])`,
      [uids],
    );
    const byId = new Map(rows.rows.map((row) => [row.id, row]));
    let lost = 0;
    let wrong = 0;
    const examples: string[] = [];
    for (const message of confirmed) {
      const question = byId.get(message.userMessageId);
      const answer = byId.get(message.replyId);
      if (!question || !answer) {
        lost++;
        if (examples.length < 5)
          examples.push(`lost: message ${message.userMessageId} (${question ? "reply missing" : "not stored"})`);
        continue;
      }
      const right =
        question.uid === message.uid &&
        question.conversation_id === message.conversationId &&
        question.role === "user" &&
        question.content === message.text &&
        answer.conversation_id === message.conversationId &&
        answer.role === "assistant" &&
        answer.status === "completed" &&
        answer.content === `You said: ${message.text}`;
      if (!right) {
        wrong++;
        if (examples.length < 5) examples.push(`stored differently: message ${message.userMessageId}`);
      }
    }
    const usage = await client.query<{ uid: string; messages: string }>(
      "select uid, sum(messages)::text as messages from usage_daily where uid = any($1::text[]) group by uid",
      [uids],
    );
    const counted = new Map(usage.rows.map((row) => [row.uid, Number(row.messages)]));
    const quotaMismatches = senders.filter((sender) => (counted.get(sender.uid) ?? 0) !== sender.confirmed);
    for (const sender of quotaMismatches.slice(0, 5)) {
      examples.push(
        `quota: sender ${sender.index} sent ${sender.confirmed}, usage_daily.messages says ${counted.get(sender.uid) ?? 0}`,
      );
    }
    const cappedOver = senders.filter((sender) => sender.capped && sender.confirmed > cappedQuota);
    // Where the schema records reservations per message, none may be left held once every reply ended.
    const reservations = await client.query<{ held: string | null }>(
      `select case when to_regclass('quota_reservations') is null then null
         else (select count(*) from quota_reservations where uid = any($1::text[]))::text end as held`,
      [uids],
    );
    const heldReservations = reservations.rows[0].held === null ? undefined : Number(reservations.rows[0].held);
    return {
      rows: rows.rows.length,
      lost,
      wrong,
      /** Rows beyond the confirmed exchanges (stored, but the user was not told). */
      unconfirmedRows: rows.rows.length - 2 * confirmed.length,
      quotaMismatches: quotaMismatches.length,
      quotaCounted: [...counted.values()].reduce((sum, n) => sum + n, 0),
      cappedOver: cappedOver.length,
      heldReservations,
      examples,
    };
  } finally {
    await client.end();
  }
}

export type StoredCheck = Awaited<ReturnType<typeof checkStoredMessages>>;
