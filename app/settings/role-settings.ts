import { DEFAULT_MESSAGE_MAX_CHARS } from "./chat-limits";

/**
 * Per-role settings written in one environment variable, e.g.
 *
 *   QUOTA_DAILY_MESSAGES="none=20;premium=500;*=200;admin=unlimited"
 *   LLM_ROLE_MODELS="none=llama3.2:1b;premium=*"
 *
 * Entries are separated by ";", each `role=value`. `none` stands for users
 * without a role (stripeRole ""), `*` for every role not listed. `admin`
 * applies to verified admins only; an unverified "admin" counts as any other
 * role. "=" separates (not ":") because Ollama model ids contain colons.
 */
export const NO_ROLE_KEY = "none";
export const OTHER_ROLES_KEY = "*";
export const ADMIN_KEY = "admin";

export type RoleMap<T> = ReadonlyMap<string, T>;

export function parseRoleMap<T>(text: string | undefined, parseValue: (value: string, role: string) => T): RoleMap<T> {
  const map = new Map<string, T>();
  if (!text) return map;
  for (const entry of text.split(";")) {
    if (entry.trim() === "") continue;
    const at = entry.indexOf("=");
    if (at === -1) throw new Error(`"${entry.trim()}" is not role=value`);
    const role = entry.slice(0, at).trim();
    if (role === "") throw new Error(`"${entry.trim()}" has no role (write "${NO_ROLE_KEY}" for users without one)`);
    if (map.has(role)) throw new Error(`role "${role}" is listed twice`);
    map.set(role, parseValue(entry.slice(at + 1).trim(), role));
  }
  return map;
}

/** The key a signed-in user's settings are looked up by. */
export function roleKey({ role, isAdmin }: { role: string; isAdmin: boolean }): string {
  if (isAdmin) return ADMIN_KEY;
  if (role === "" || role === NO_ROLE_KEY) return NO_ROLE_KEY;
  // An unverified "admin" must not get an admin's allowance.
  if (role === ADMIN_KEY) return OTHER_ROLES_KEY;
  return role;
}

/** The role's own entry, else the `*` entry, else undefined. */
export function lookupRole<T>(map: RoleMap<T>, key: string): T | undefined {
  // has(), not ??: a null value (unlimited) is an answer, not a missing entry.
  return map.has(key) ? map.get(key) : map.get(OTHER_ROLES_KEY);
}

/** Daily message quota: a whole number, or null for unlimited. */
export type DailyLimit = number | null;

export const DEFAULT_DAILY_LIMITS: RoleMap<DailyLimit> = new Map<string, DailyLimit>([
  [NO_ROLE_KEY, 20],
  [OTHER_ROLES_KEY, 200],
  [ADMIN_KEY, null],
]);

export function parseDailyLimits(text: string | undefined): RoleMap<DailyLimit> {
  const overrides = parseRoleMap<DailyLimit>(text, (value, role) => {
    if (value.toLowerCase() === "unlimited") return null;
    if (!/^\d+$/.test(value))
      throw new Error(`quota for "${role}" must be a whole number or "unlimited", not "${value}"`);
    return Number(value);
  });
  // Roles not mentioned keep their defaults.
  return new Map([...DEFAULT_DAILY_LIMITS, ...overrides]);
}

/** Model ids a role may use: a list, or "*" for every configured model. */
export type ModelAllowance = readonly string[] | "*";

export function parseRoleModels(text: string | undefined): RoleMap<ModelAllowance> {
  return parseRoleMap<ModelAllowance>(text, (value, role) => {
    if (value === "*") return "*";
    const ids = splitList(value, ",");
    if (ids.length === 0) throw new Error(`no models listed for "${role}"`);
    return ids;
  });
}

export function splitList(text: string | undefined, separator: string): string[] {
  return (text ?? "")
    .split(separator)
    .map((item) => item.trim())
    .filter(Boolean);
}

/** Bounds the chat endpoint's body limit (a character may take 4 bytes in JSON: a few MB at most). */
export const MESSAGE_MAX_CHARS_CEILING = 1_000_000;

export const DEFAULT_MESSAGE_MAX: RoleMap<number> = new Map([[OTHER_ROLES_KEY, DEFAULT_MESSAGE_MAX_CHARS]]);

export function parseMessageMaxChars(text: string | undefined): RoleMap<number> {
  const overrides = parseRoleMap<number>(text, (value, role) => {
    const chars = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!(chars >= 1 && chars <= MESSAGE_MAX_CHARS_CEILING)) {
      throw new Error(
        `message length for "${role}" must be a whole number from 1 to ${MESSAGE_MAX_CHARS_CEILING}, not "${value}"`,
      );
    }
    return chars;
  });
  return new Map([...DEFAULT_MESSAGE_MAX, ...overrides]);
}

/** A per-role whole number within bounds, e.g. ATTACHMENT_MAX_MB="none=5;*=20". Roles not listed keep `defaults`. */
export function parseRoleCount(
  text: string | undefined,
  defaults: RoleMap<number>,
  min: number,
  max: number,
  what: string,
): RoleMap<number> {
  const overrides = parseRoleMap<number>(text, (value, role) => {
    const n = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!(n >= min && n <= max))
      throw new Error(`${what} for "${role}" must be a whole number from ${min} to ${max}, not "${value}"`);
    return n;
  });
  return new Map([...defaults, ...overrides]);
}

/** Attachments (docs/decisions/071): largest file, files per message and storage per user, per role. */
export const DEFAULT_ATTACHMENT_MAX_MB: RoleMap<number> = new Map([[OTHER_ROLES_KEY, 20]]);
export const DEFAULT_ATTACHMENTS_PER_MESSAGE: RoleMap<number> = new Map([[OTHER_ROLES_KEY, 10]]);
export const DEFAULT_ATTACHMENT_STORAGE_MB: RoleMap<number> = new Map([[OTHER_ROLES_KEY, 500]]);
/** Bounds the upload route's body limit. */
export const ATTACHMENT_MAX_MB_CEILING = 100;
