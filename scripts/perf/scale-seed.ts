import pg from "pg";

/**
 * The data of `npm run bench -- --scale` (scripts/perf/scale.ts), written
 * straight into PostgreSQL with generate_series: a million messages through
 * the app's API would take hours. Every id is an md5 of what the row is, so
 * each run seeds the same rows, but for the heavy user's uid (the Auth
 * emulator's choice) and the times (counted back from the run's start). The
 * rows are the ones the app
 * itself writes (app/data/messages.server.ts saveExchange): each
 * conversation a chain of user and assistant messages, each one's parent the
 * message before it, the last one the branch shown (current_leaf_id), parts
 * as stored (text parts; a reply's marked done) and the plain text in
 * content; the replies counted per day and model (model_usage_daily).
 *
 * Stages are cumulative: each adds rows until the heavy user holds
 * `heavyConversations` chats and the rest of the deployment has grown in
 * proportion (see `stageSize`).
 */

/** The deployment at the largest stage. */
export const FULL_SIZE = { users: 1_000, heavyConversations: 10_000, inbox: 100_000 } as const;
/** Messages in every seeded chat but one. */
export const MESSAGES_PER_CHAT = 10;
/** The heavy user's first chat: the long conversation whose page is measured. */
export const LONG_CHAT_MESSAGES = 500;
/** Chats of each other user: with the heavy user's, about 1,000,000 messages at full size. */
export const CHATS_PER_OTHER_USER = 90;
/** Days of usage_daily rows per user: the admin usage page's window (app/data/admin-usage.server.ts). */
export const USAGE_DAYS = 30;
/**
 * A word that the searches look for. It is in one reply of one chat in a
 * hundred, and in one inbox item in a thousand: a page of results is full
 * late or never, so a search reads through most of what it searches.
 */
export const SEARCH_WORD = "heliotrope";

export interface StageSize {
  /** Users with data, the heavy user among them. */
  users: number;
  heavyConversations: number;
  inbox: number;
}

/** The deployment when the heavy user holds `heavyConversations` chats: all of it in proportion. */
export function stageSize(heavyConversations: number): StageSize {
  const share = heavyConversations / FULL_SIZE.heavyConversations;
  return {
    users: Math.round(FULL_SIZE.users * share),
    heavyConversations,
    inbox: Math.round(FULL_SIZE.inbox * share),
  };
}

/** What the seeded rows hang on: the heavy user, and the instant their times count back from. */
export interface SeedContext {
  heavyUid: string;
  /** The instant every seeded time is counted back from (the last 30 days before it). */
  now: Date;
}

/** The long conversation's id (the heavy user's chat number 1), as the seed makes it. */
export async function longConversationId(client: pg.Client, context: SeedContext): Promise<string> {
  const { rows } = await client.query<{ id: string }>(`select md5('scale:conv:' || $1 || ':1')::uuid::text as id`, [
    context.heavyUid,
  ]);
  return rows[0].id;
}

/** Seeds from the size `before` to the size `after` (cumulative); the statements' own times, for the report. */
export async function growTo(
  client: pg.Client,
  context: SeedContext,
  before: StageSize,
  after: StageSize,
): Promise<number> {
  const started = performance.now();
  await client.query("set timezone = 'UTC'");
  await planChats(client, context, before, after);
  await insertConversations(client);
  await insertMessages(client);
  await countRepliesPerModel(client);
  await insertInbox(client, context, before.inbox, after.inbox);
  await insertUsage(client, context, before.users, after.users);
  // What autovacuum would have done on a live deployment: statistics for the planner, and the visibility map.
  await client.query("vacuum analyze conversations, messages, inbox_messages, usage_daily, model_usage_daily");
  return performance.now() - started;
}

/**
 * The chats this stage adds, one row each, in a temporary table both inserts
 * read: the heavy user's next ones and 90 of each new other user. `ord`
 * numbers a user's chats from 1; `starts` spreads them over the 30 days.
 */
async function planChats(client: pg.Client, context: SeedContext, before: StageSize, after: StageSize) {
  await client.query("drop table if exists scale_plan");
  await client.query(
    `create temp table scale_plan as
     with chats as (
       select $1::text as uid, i as ord from generate_series($2::int + 1, $3::int) i
       union all
       select 'scale-user-' || lpad(u::text, 4, '0'), i
       from generate_series($4::int, $5::int - 1) u, generate_series(1, $6::int) i
     )
     select md5('scale:conv:' || uid || ':' || ord)::uuid as id, uid, ord,
       case when uid = $1 and ord = 1 then $7::int else $8::int end as size,
       row_number() over (order by uid, ord) as batch_key
     from chats`,
    [
      context.heavyUid,
      before.heavyConversations,
      after.heavyConversations,
      // Other users are numbered from 1; the heavy user is one of the `users`.
      Math.max(before.users, 1),
      after.users,
      CHATS_PER_OTHER_USER,
      LONG_CHAT_MESSAGES,
      MESSAGES_PER_CHAT,
    ],
  );
  // A chat's first message: spread over the window, early enough for its last one to be in the past.
  await client.query("alter table scale_plan add column starts timestamptz");
  await client.query(
    `update scale_plan set starts = $1::timestamptz - make_interval(mins => size)
       - interval '29 days' * (abs(hashtext(uid || ':' || ord)) % 10007) / 10007.0`,
    [context.now.toISOString()],
  );
}

async function insertConversations(client: pg.Client) {
  await client.query(
    `insert into conversations (id, uid, title, model, current_leaf_id, created_at, updated_at)
     select id, uid, 'Chat ' || ord || ' about ' || (${TOPICS})[1 + ord % 12], 'bench-model',
       md5(id::text || ':' || size)::uuid, starts, starts + make_interval(mins => size - 1)
     from scale_plan`,
  );
}

const TOPICS = `array['databases', 'gardening', 'sailing', 'tax forms', 'bread', 'chess', 'Rust', 'birds', 'pottery', 'trains', 'running', 'jazz']`;

/** Messages per statement: a few seconds each, and a bounded queue of foreign-key checks. */
const MESSAGES_PER_STATEMENT = 100_000;

/**
 * Message n of a chat follows n − 1; odd ones are the user's, even ones the
 * replies (completed, by the bench's model). Inserted in order, so each
 * chat's seq (an identity) grows with n as the app's would.
 */
async function insertMessages(client: pg.Client) {
  const { rows } = await client.query<{ chats: string; messages: string }>(
    "select count(*) as chats, coalesce(sum(size), 0) as messages from scale_plan",
  );
  const chats = Number(rows[0].chats);
  const chatsPerStatement = Math.max(1, Math.floor((MESSAGES_PER_STATEMENT * chats) / Number(rows[0].messages || 1)));
  for (let first = 1; first <= chats; first += chatsPerStatement) {
    await client.query(
      `insert into messages (id, conversation_id, parent_id, role, parts, content, status, model,
         input_tokens, output_tokens, cost_micro_usd, created_at, completed_at)
       select md5(p.id::text || ':' || n)::uuid, p.id,
         case when n > 1 then md5(p.id::text || ':' || (n - 1))::uuid end,
         m.role, m.parts, m.content,
         case when m.role = 'assistant' then 'completed' end,
         case when m.role = 'assistant' then 'bench-model' end,
         case when m.role = 'assistant' then 600 + n end,
         case when m.role = 'assistant' then 120 + n end,
         case when m.role = 'assistant' then 2500 + n else 0 end,
         p.starts + make_interval(mins => n - 1),
         case when m.role = 'assistant' then p.starts + make_interval(mins => n - 1) end
       from scale_plan p
       cross join generate_series(1, p.size) n
       cross join lateral (select ${messageText("p.ord", "n")} as content,
         case when n % 2 = 1 then 'user' else 'assistant' end as role) t
       cross join lateral (select t.role, t.content,
         case when t.role = 'user' then jsonb_build_array(jsonb_build_object('type', 'text', 'text', t.content))
           else jsonb_build_array(jsonb_build_object('type', 'text', 'text', t.content, 'state', 'done')) end as parts) m
       where p.batch_key between $1 and $2
       order by p.batch_key, n`,
      [first, first + chatsPerStatement - 1],
    );
  }
}

/** The stage's replies in model_usage_daily, as saveExchange counts each one it stores (app/data/messages.server.ts). */
async function countRepliesPerModel(client: pg.Client) {
  await client.query(
    `insert into model_usage_daily (day, model, replies, input_tokens, output_tokens, cost_micro_usd)
     select (m.created_at at time zone 'UTC')::date, m.model, count(*), sum(m.input_tokens), sum(m.output_tokens),
       sum(m.cost_micro_usd)
     from messages m join scale_plan p on p.id = m.conversation_id
     where m.role = 'assistant' and m.model is not null
     group by 1, 2
     on conflict (day, model) do update set
       replies = model_usage_daily.replies + excluded.replies,
       input_tokens = model_usage_daily.input_tokens + excluded.input_tokens,
       output_tokens = model_usage_daily.output_tokens + excluded.output_tokens,
       cost_micro_usd = model_usage_daily.cost_micro_usd + excluded.cost_micro_usd`,
  );
}

/** A question, or a reply of about 200 characters; the search word in reply 2 of one chat in a hundred. */
function messageText(ord: string, n: string) {
  const topic = `(${TOPICS})[1 + ${ord} % 12]`;
  return `case when ${n} % 2 = 1
      then 'Question ' || (${n} + 1) / 2 || ' of chat ' || ${ord} || ': how do I get better at ' || ${topic} || '?'
      else 'Here is what matters most about ' || ${topic} || ': start with the basics, practise the details that come up '
        || 'every day, and keep a short list of what to try next. Step ' || ${n} / 2 || '.'
        || case when ${ord} % 100 = 7 and ${n} = 4 then ' A ${SEARCH_WORD} note closes it.' else '' end
    end`;
}

/**
 * Inbox items `from` + 1 to `to`: four contact messages to one report (with
 * its exchange, as app/data/inbox.server.ts addReport stores it), a third each
 * new, read and archived, spread over the 30 days.
 */
async function insertInbox(client: pg.Client, context: SeedContext, from: number, to: number) {
  await client.query(
    `insert into inbox_messages (id, kind, status, sender_email, sender_uid, sender_verified, sender_name, sender_role,
       body, report_reason, exchange, created_at)
     select md5('scale:inbox:' || i)::uuid, kind,
       (array['new', 'read', 'archived'])[1 + i % 3],
       'scale-user-' || lpad((1 + i % 999)::text, 4, '0') || '@example.com',
       'scale-user-' || lpad((1 + i % 999)::text, 4, '0'), true, 'Scale user ' || (1 + i % 999), '',
       'Hello, a question about ' || (${TOPICS})[1 + i % 12] || ' (item ' || i || ').'
         || case when i % 1000 = 7 then ' Seen a ${SEARCH_WORD}?' else '' end,
       case when kind = 'report' then 'wrong' end,
       case when kind = 'report' then jsonb_build_object('conversationId', null, 'messageId', md5('scale:reported:' || i)::uuid,
         'userText', 'A question about ' || (${TOPICS})[1 + i % 12], 'assistantText', 'A reply that was wrong.') end,
       $3::timestamptz - interval '30 days' * ((i::bigint * 7919) % 10007) / 10007.0
     from generate_series($1::int + 1, $2::int) i
     cross join lateral (select case when i % 5 = 0 then 'report' else 'contact' end as kind) k`,
    [from, to, context.now.toISOString()],
  );
}

/** 30 days of usage_daily for users `from` to `to` − 1 (user 0: the heavy user), in three plans. */
async function insertUsage(client: pg.Client, context: SeedContext, from: number, to: number) {
  await client.query(
    `insert into usage_daily (uid, day, messages, input_tokens, output_tokens, cost_micro_usd, role)
     select case when u = 0 then $1 else 'scale-user-' || lpad(u::text, 4, '0') end, ($4::timestamptz)::date - d,
       5 + (u * 31 + d * 17) % 40, (5 + (u * 31 + d * 17) % 40) * 800, (5 + (u * 31 + d * 17) % 40) * 300,
       (5 + (u * 31 + d * 17) % 40) * 4000, (array['', 'premium', 'pro'])[1 + u % 3]
     from generate_series($2::int, $3::int - 1) u, generate_series(0, $5::int - 1) d`,
    [context.heavyUid, from, to, context.now.toISOString(), USAGE_DAYS],
  );
}

/** What the database holds, for the report: the figures the stages are named by. */
export async function countRows(client: pg.Client) {
  const { rows } = await client.query<Record<string, string>>(
    `select (select count(distinct uid) from usage_daily) as users, (select count(*) from conversations) as conversations,
       (select count(*) from messages) as messages, (select count(*) from inbox_messages) as inbox,
       (select count(*) from usage_daily) as usage`,
  );
  const row = rows[0];
  return {
    users: Number(row.users),
    conversations: Number(row.conversations),
    messages: Number(row.messages),
    inbox: Number(row.inbox),
    usage: Number(row.usage),
  };
}

export type RowCounts = Awaited<ReturnType<typeof countRows>>;
