import { sql } from "drizzle-orm";
import { lastUtcDays } from "~/time/day";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { withDeadline } from "~/deadline.server";
import { adminAuth } from "~/firebase.server";
import { apiKeys, limitRefusals, modelUsageDaily, stripeEvents, usageDaily } from "~/db/schema";

/**
 * The admin usage page's figures over the last 30 UTC days (docs/decisions/073):
 * per day, per model, per plan, the top users, the refusals at the limits and
 * revenue per plan from the stored Stripe events. Plans are roles: usage is
 * kept with the role of the day's latest reply ("none": no role). The API
 * keys' figures are each key's own counters since it was made (api_keys),
 * the busiest TOP_KEYS only.
 */

export const USAGE_DAYS = 30;
/** How many API keys the page lists: the busiest by cost, then tokens, then calls. */
export const TOP_KEYS = 50;

export interface DayRow {
  day: string;
  users: number;
  messages: number;
  tokens: number;
  costMicroUsd: number;
  refusals: number;
}

export interface ModelRow {
  model: string;
  replies: number;
  inputTokens: number;
  outputTokens: number;
  costMicroUsd: number;
}

export interface PlanRow {
  role: string;
  users: number;
  messages: number;
  tokens: number;
  costMicroUsd: number;
  /** Paid invoices for the plan's price, by currency (smallest unit). */
  revenue: Array<{ currency: string; amount: number }>;
}

export interface TopUser {
  uid: string;
  messages: number;
  tokens: number;
  costMicroUsd: number;
}

export interface KeyRow {
  id: string;
  uid: string;
  name: string;
  prefix: string;
  requests: number;
  tokens: number;
  costMicroUsd: number;
  lastUsedAt: string | null;
}

export interface RefusalRow {
  limit: string;
  count: number;
  users: number;
}

export interface UsageReport {
  from: string;
  to: string;
  days: DayRow[];
  models: ModelRow[];
  plans: PlanRow[];
  top: TopUser[];
  refusals: RefusalRow[];
  /** The busiest API keys (at most TOP_KEYS), and how many keys were ever used. */
  keys: KeyRow[];
  keysUsed: number;
}

const n = (value: unknown) => Number(value ?? 0);

export async function usageReport(db: Db, now = new Date()): Promise<UsageReport> {
  const days = lastUtcDays(now, USAGE_DAYS);
  const from = days[0];
  const to = days[days.length - 1];
  // Read at once; local mode's pool has one connection and queues them (scripts/local/stack.ts).
  const [daily, refusedByDay, models, plans, revenue, top, refusals, keys, keysUsed] = await Promise.all([
    // One row per (uid, day), the key: counting rows counts users, without sorting them for a distinct count.
    db.execute<{ day: string; users: string; messages: string; tokens: string; cost: string }>(sql`
    select day::text as day, count(*) filter (where messages > 0) as users, sum(messages) as messages,
      sum(input_tokens + output_tokens) as tokens, sum(cost_micro_usd) as cost
    from ${usageDaily} where day >= ${from}::date group by day
  `),
    db.execute<{ day: string; count: string }>(sql`
    select day::text as day, sum(count) as count from ${limitRefusals} where day >= ${from}::date group by day
  `),
    // Kept per day and model as replies are stored: at most 30 rows per model (docs/decisions/102).
    db.execute<{ model: string; replies: string; input: string; output: string; cost: string }>(sql`
    select model, sum(replies) as replies, sum(input_tokens) as input, sum(output_tokens) as output,
      sum(cost_micro_usd) as cost
    from ${modelUsageDaily} where day >= ${from}::date
    group by model order by cost desc, replies desc
  `),
    // Per plan and user first, then per plan: two hash aggregates instead of sorting the month's rows for a distinct count.
    db.execute<{ role: string; users: string; messages: string; tokens: string; cost: string }>(sql`
    select role, count(*) as users, sum(messages) as messages, sum(tokens) as tokens, sum(cost) as cost
    from (
      select case when role = '' then 'none' else role end as role, uid, sum(messages) as messages,
        sum(input_tokens + output_tokens) as tokens, sum(cost_micro_usd) as cost
      from ${usageDaily} where day >= ${from}::date group by 1, 2
    ) per_user
    group by role order by cost desc, messages desc
  `),
    db.execute<{ role: string; currency: string; amount: string }>(sql`
    select coalesce(nullif(role, ''), 'none') as role, coalesce(currency, 'usd') as currency, sum(amount) as amount
    from ${stripeEvents} where type = 'invoice.paid' and created_at >= ${from}::date group by 1, 2
  `),
    db.execute<{ uid: string; messages: string; tokens: string; cost: string }>(sql`
    select uid, sum(messages) as messages, sum(input_tokens + output_tokens) as tokens, sum(cost_micro_usd) as cost
    from ${usageDaily} where day >= ${from}::date group by uid order by cost desc, tokens desc, messages desc limit 10
  `),
    db.execute<{ limit: string; count: string; users: string }>(sql`
    select "limit", sum(count) as count, count(distinct uid) as users from ${limitRefusals}
    where day >= ${from}::date group by "limit" order by 2 desc
  `),
    db.execute<{
      id: string;
      uid: string;
      name: string;
      prefix: string;
      requests: number;
      tokens: string;
      cost: string;
      last_used: string | null;
    }>(sql`
    select id::text as id, uid, name, prefix, requests, input_tokens + output_tokens as tokens, cost_micro_usd as cost,
      to_char(last_used_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as last_used
    from ${apiKeys} where requests > 0
    order by cost_micro_usd desc, input_tokens + output_tokens desc, requests desc, id limit ${TOP_KEYS}
  `),
    db.execute<{ count: string }>(sql`select count(*) as count from ${apiKeys} where requests > 0`),
  ]);

  const byDay = new Map(daily.rows.map((row) => [row.day, row]));
  const refusedOn = new Map(refusedByDay.rows.map((row) => [row.day, n(row.count)]));
  const planRows = new Map<string, PlanRow>(
    plans.rows.map((row) => [
      row.role,
      {
        role: row.role,
        users: n(row.users),
        messages: n(row.messages),
        tokens: n(row.tokens),
        costMicroUsd: n(row.cost),
        revenue: [],
      },
    ]),
  );
  for (const row of revenue.rows) {
    const plan = planRows.get(row.role) ?? {
      role: row.role,
      users: 0,
      messages: 0,
      tokens: 0,
      costMicroUsd: 0,
      revenue: [],
    };
    plan.revenue.push({ currency: row.currency, amount: n(row.amount) });
    planRows.set(row.role, plan);
  }
  return {
    from,
    to,
    days: days.map((day) => {
      const row = byDay.get(day);
      return {
        day,
        users: n(row?.users),
        messages: n(row?.messages),
        tokens: n(row?.tokens),
        costMicroUsd: n(row?.cost),
        refusals: refusedOn.get(day) ?? 0,
      };
    }),
    models: models.rows.map((row) => ({
      model: row.model,
      replies: n(row.replies),
      inputTokens: n(row.input),
      outputTokens: n(row.output),
      costMicroUsd: n(row.cost),
    })),
    plans: [...planRows.values()],
    top: top.rows.map((row) => ({
      uid: row.uid,
      messages: n(row.messages),
      tokens: n(row.tokens),
      costMicroUsd: n(row.cost),
    })),
    refusals: refusals.rows.map((row) => ({ limit: row.limit, count: n(row.count), users: n(row.users) })),
    keys: keys.rows.map((row) => ({
      id: row.id,
      uid: row.uid,
      name: row.name,
      prefix: row.prefix,
      requests: n(row.requests),
      tokens: n(row.tokens),
      costMicroUsd: n(row.cost),
      lastUsedAt: row.last_used,
    })),
    keysUsed: n(keysUsed.rows[0]?.count),
  };
}

/** The report as CSV: one section per table, each with its header row. */
export function usageCsv(report: UsageReport, emails: ReadonlyMap<string, string>): string {
  const usd = (micro: number) => (micro / 1_000_000).toFixed(6);
  const sections: string[][][] = [
    [
      ["day", "active_users", "messages", "tokens", "cost_usd", "refusals"],
      ...report.days.map((d) => [d.day, d.users, d.messages, d.tokens, usd(d.costMicroUsd), d.refusals].map(String)),
    ],
    [
      ["model", "replies", "input_tokens", "output_tokens", "cost_usd"],
      ...report.models.map((m) => [m.model, m.replies, m.inputTokens, m.outputTokens, usd(m.costMicroUsd)].map(String)),
    ],
    [
      ["plan_role", "users", "messages", "tokens", "cost_usd", "revenue"],
      ...report.plans.map((p) =>
        [
          p.role,
          p.users,
          p.messages,
          p.tokens,
          usd(p.costMicroUsd),
          p.revenue.map((r) => `${(r.amount / 100).toFixed(2)} ${r.currency}`).join(" + "),
        ].map(String),
      ),
    ],
    [
      ["top_user", "email", "messages", "tokens", "cost_usd"],
      ...report.top.map((t) => [t.uid, emails.get(t.uid) ?? "", t.messages, t.tokens, usd(t.costMicroUsd)].map(String)),
    ],
    [["refused_at", "refusals", "users"], ...report.refusals.map((r) => [r.limit, r.count, r.users].map(String))],
    [
      ["api_key_prefix", "key_name", "owner_uid", "owner_email", "requests", "tokens", "cost_usd", "last_used"],
      ...report.keys.map((k) =>
        [
          k.prefix,
          k.name,
          k.uid,
          emails.get(k.uid) ?? "",
          k.requests,
          k.tokens,
          usd(k.costMicroUsd),
          k.lastUsedAt ?? "",
        ].map(String),
      ),
    ],
  ];
  return sections.map((rows) => rows.map((row) => row.map(csvField).join(",")).join("\r\n")).join("\r\n\r\n") + "\r\n";
}

/**
 * Quoted when needed; a leading =, +, -, @, tab or return is neutralised so a
 * spreadsheet never runs it as a formula. Only a whole number ("-12", "-0.5")
 * keeps its sign: text that merely starts like one ("-2+3+cmd|…", an email an
 * account chose) is a formula to a spreadsheet.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^-?\d+(\.\d+)?$/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The top users' emails; without the identity service the page shows their ids. */
export async function emailsOf(uids: string[]): Promise<Map<string, string>> {
  if (uids.length === 0) return new Map();
  try {
    const { users } = await withDeadline(
      "identity",
      getConfig().backendTimeoutMs,
      adminAuth().getUsers(uids.map((uid) => ({ uid }))),
    );
    return new Map(users.flatMap((user) => (user.email ? [[user.uid, user.email] as const] : [])));
  } catch {
    return new Map();
  }
}
