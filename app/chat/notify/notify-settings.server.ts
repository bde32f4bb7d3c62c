import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { getNotifyPreferences } from "~/data/preferences.server";
import { listPushDevices } from "~/data/push-subscriptions.server";

/** What the dashboard's Notifications section shows (docs/decisions/101). */
export interface NotifySettingsView {
  /** The server's VAPID public key: push is on. Null: it is off, and the page does not offer it. */
  pushKey: string | null;
  /** Email can be sent (SMTP_URL is set): the email choice is offered. */
  emailAvailable: boolean;
  /** A reply is "long" (for email) past this many seconds. */
  emailAfterSeconds: number;
  devices: { id: string; device: string; createdAt: string; lastUsedAt: string | null }[];
  preview: boolean;
  email: boolean;
}

export async function notifySettingsFor(db: Db, uid: string): Promise<NotifySettingsView> {
  const { notify, smtp } = getConfig();
  const [devices, preferences] = await Promise.all([listPushDevices(db, uid), getNotifyPreferences(db, uid)]);
  return {
    pushKey: notify.vapid?.publicKey ?? null,
    emailAvailable: smtp !== undefined,
    emailAfterSeconds: Math.round(notify.emailAfterMs / 1000),
    devices: devices.map((device) => ({
      id: device.id,
      device: device.device,
      createdAt: device.createdAt.toISOString(),
      lastUsedAt: device.lastUsedAt?.toISOString() ?? null,
    })),
    preview: preferences.preview,
    email: preferences.email,
  };
}
