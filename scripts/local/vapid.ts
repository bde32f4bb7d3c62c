import fs from "node:fs";
import path from "node:path";
import webPush from "web-push";

/**
 * Local mode's VAPID pair (docs/decisions/101), when none is configured: made
 * once and kept in the data directory, so a browser subscribed yesterday is
 * still reachable today. For development only: an operator sets their own
 * (docs/configuration.md).
 */
export function localVapidKeys(dataDir: string): { env: Record<string, string>; notice: string } {
  const file = path.join(dataDir, "vapid.json");
  let keys: { publicKey: string; privateKey: string };
  let made = false;
  try {
    keys = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    keys = webPush.generateVAPIDKeys();
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
    made = true;
  }
  return {
    env: {
      VAPID_PUBLIC_KEY: keys.publicKey,
      VAPID_PRIVATE_KEY: keys.privateKey,
      VAPID_SUBJECT: "mailto:dev@localhost",
    },
    notice: `${made ? "Made" : "Using"} a development VAPID key pair for push notifications (${path.relative(".", file)}); set VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY for your own.`,
  };
}
