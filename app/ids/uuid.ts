/**
 * A random UUID (v4). crypto.randomUUID exists only in secure contexts, and a
 * self-hosted Nuvara² may be opened over plain http on a home network;
 * crypto.getRandomValues works everywhere.
 */
export function uuid(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID: ids from outside are checked before PostgreSQL is asked (it would refuse to compare). */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}
