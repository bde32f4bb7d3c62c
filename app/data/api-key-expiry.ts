/**
 * When a new API key expires: the choices the dashboard's form offers and
 * the server takes (app/data/api-key-intents.server.ts), in days from its
 * creation; null never expires.
 */
export const API_KEY_EXPIRIES = ["never", "30d", "90d", "1y"] as const;
export type ApiKeyExpiry = (typeof API_KEY_EXPIRIES)[number];

export const API_KEY_EXPIRY_CHOICES: Record<ApiKeyExpiry, { label: string; days: number | null }> = {
  never: { label: "Never", days: null },
  "30d": { label: "In 30 days", days: 30 },
  "90d": { label: "In 90 days", days: 90 },
  "1y": { label: "In 1 year", days: 365 },
};

/** A key that lasts a season unless its owner chooses otherwise: a forgotten key does not work for ever. */
export const DEFAULT_API_KEY_EXPIRY: ApiKeyExpiry = "90d";
