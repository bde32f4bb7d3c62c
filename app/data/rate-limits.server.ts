import { sql } from "drizzle-orm";
import { now } from "~/time/clock.server";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { withDeadline } from "~/deadline.server";
import { countRefusal, limitName } from "~/metrics/metrics.server";

/**
 * Rate limits in fixed windows, counted in PostgreSQL (rate_limits) so that
 * every server instance shares the counts. Each hit is one atomic upsert:
 * concurrent hits never lose a count. The windows are of the app's clock
 * (app/time/clock.server.ts, ADR 081), which tests hold still so that a window cannot
 * end in the middle of one; instances whose clocks differ by a moment
 * differ only on which side of a window's edge a hit at that edge falls.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RateLimitResult {
  allowed: boolean;
  count: number;
  retryAfterSeconds: number;
}

/** "a second", "42 seconds": how long to wait, for a refusal's message. */
export function secondsInWords(seconds: number): string {
  return seconds === 1 ? "a second" : `${seconds} seconds`;
}

export interface RateLimitRule {
  key: string;
  limit: number;
}

/** Counts one hit against each key, in one statement; the count after it and the seconds left in the window. */
async function countHits(db: Db, keys: string[], windowSeconds: number) {
  const at = now().getTime();
  const windowMs = windowSeconds * 1000;
  const windowStart = Math.floor(at / windowMs) * windowMs;
  const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + windowMs - at) / 1000));
  const list = sql.join(
    keys.map((key) => sql`${key}`),
    sql`, `,
  );
  const result = await db.execute<{ key: string; count: number }>(sql`
    insert into rate_limits (key, window_start, count)
    select key, ${new Date(windowStart).toISOString()}::timestamptz, 1
    from unnest(array[${list}]::text[]) as key
    on conflict (key, window_start) do update set count = rate_limits.count + 1
    returning key, count
  `);
  // Old windows are useless; trimming now and then keeps the table small.
  if (Math.random() < 0.01) {
    await db.execute(
      sql`delete from rate_limits where window_start < ${new Date(at - DAY_MS).toISOString()}::timestamptz`,
    );
  }
  return result.rows.map((row) => ({ key: row.key, count: Number(row.count), retryAfterSeconds }));
}

/** Counts one hit against `key`. */
export async function hitRateLimit(
  db: Db,
  key: string,
  limit: number,
  windowSeconds: number,
): Promise<RateLimitResult> {
  const [row] = await countHits(db, [key], windowSeconds);
  if (row.count > limit) countRefusal(limitName(key)); // by name on /metrics, never by subject
  return { allowed: row.count <= limit, count: row.count, retryAfterSeconds: row.retryAfterSeconds };
}

/**
 * Counts one hit against each rule's key in one round trip, however many
 * keys; refused when any key is over its limit, with the longest wait among those.
 */
export async function hitRateLimits(
  db: Db,
  rules: RateLimitRule[],
  windowSeconds: number,
): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
  if (rules.length === 0) return { allowed: true, retryAfterSeconds: 0 };
  const limits = new Map(rules.map((rule) => [rule.key, rule.limit]));
  const over = (await countHits(db, [...limits.keys()], windowSeconds)).filter(
    (row) => row.count > (limits.get(row.key) ?? Infinity),
  );
  for (const row of over) countRefusal(limitName(row.key));
  return { allowed: over.length === 0, retryAfterSeconds: Math.max(1, ...over.map((row) => row.retryAfterSeconds)) };
}

/**
 * Records `key` once: true the first time, false when it was recorded before
 * (a used challenge, say), on every instance. Its row's window is `until`
 * itself rather than a window of the clock, so a key recorded just before a
 * window boundary is still found after it; the trimming above removes it a
 * day after `until`, when nothing valid can name it any more.
 */
export async function recordOnce(db: Db, key: string, until: Date): Promise<boolean> {
  const result = await db.execute(sql`
    insert into rate_limits (key, window_start, count) values (${key}, ${until.toISOString()}::timestamptz, 1)
    on conflict (key, window_start) do nothing
    returning key
  `);
  return result.rows.length === 1;
}

export interface LimitRule {
  key: string;
  limit: number;
}

const HOUR = 60 * 60;

/**
 * Counts the request against each rule in turn, most specific first, and
 * stops at the first one exceeded: a refused request does not also use up
 * the shared budgets (overall) that others need.
 */
export async function checkHourlyLimits(
  db: Db,
  rules: LimitRule[],
): Promise<{ retryAfterSeconds: number } | undefined> {
  for (const rule of rules) {
    const result = await withDeadline(
      "postgres",
      getConfig().backendTimeoutMs,
      hitRateLimit(db, rule.key, rule.limit, HOUR),
    );
    if (!result.allowed) return { retryAfterSeconds: result.retryAfterSeconds };
  }
  return undefined;
}
