import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import { logBackendFault } from "~/deadline.server";
import { getAccountDetails } from "~/data/account.server";
import { getNotifyPreferences, type NotifyPreferences } from "~/data/preferences.server";
import {
  dropExpiredSubscription,
  markSubscriptionUsed,
  pushSubscriptionsOf,
  type StoredPushSubscription,
} from "~/data/push-subscriptions.server";
import {
  claimNotice,
  noticeFacts,
  recordNoticeOutcome,
  type NoticeFacts,
  type NoticeKind,
  type NoticeOutcome,
} from "~/data/reply-notices.server";
import { anyTabVisible } from "~/data/tab-presence.server";
import { log } from "~/log/logger.server";
import { noticeSender, sendNoticeMail } from "~/mail/notice-mail.server";
import { sendPush } from "~/net/web-push.server";
import { noticeText, type NoticeOccasion } from "./notice-text";

/**
 * Tells the user a reply is done, failed, or waits for their approval, when
 * none of their tabs is visible (docs/decisions/101): a Web Push message to
 * each device they subscribed, or — without any, and if they chose it — an
 * email when a long reply ends. Called by the instance that ends the run (or
 * settles it after its instance died, or shows the approval card); the claim
 * in PostgreSQL makes it one send whoever calls. Never on the reply's path:
 * the callers do not wait, and a failure here is logged, not shown.
 */

export interface NoticeRun {
  id: string;
  uid: string;
  conversationId: string;
}

/** A run has ended (the instance that marked it so calls this). */
export function noticeRunEnded(db: Db, run: NoticeRun, status: "completed" | "failed" | "stopped" | "interrupted") {
  // A stopped reply was stopped by the user: they know.
  if (status === "stopped") return;
  void deliver(db, run, "ended", status).catch((error) => logBackendFault("notify", "telling a reply ended", error));
}

/** A tool call waits for the user's approval (the card was just shown). */
export function noticeApprovalWait(db: Db, run: NoticeRun, callId: string) {
  void deliver(db, run, `approval:${callId}`, "approval").catch((error) =>
    logBackendFault("notify", "telling a tool call waits for approval", error),
  );
}

async function deliver(db: Db, run: NoticeRun, kind: NoticeKind, occasion: NoticeOccasion): Promise<void> {
  const { notify, smtp } = getConfig();
  // Neither push nor email set up: nothing to read for anyone.
  if (!notify.vapid && !smtp) return;
  const devices = notify.vapid ? await pushSubscriptionsOf(db, run.uid) : [];
  const prefs = await getNotifyPreferences(db, run.uid);
  const mayEmail = devices.length === 0 && prefs.email && smtp !== undefined && kind === "ended";
  if (devices.length === 0 && !mayEmail) return;
  if (!(await claimNotice(db, run.id, kind))) return;
  try {
    await recordNoticeOutcome(db, run.id, kind, await decideAndSend(db, run, occasion, devices, prefs));
  } catch (error) {
    await recordNoticeOutcome(db, run.id, kind, "not delivered").catch(() => undefined);
    throw error;
  }
}

async function decideAndSend(
  db: Db,
  run: NoticeRun,
  occasion: NoticeOccasion,
  devices: StoredPushSubscription[],
  prefs: NotifyPreferences,
): Promise<NoticeOutcome> {
  if (await anyTabVisible(db, run.uid)) return "tab visible";
  const facts = await noticeFacts(db, run);
  if (devices.length > 0) {
    const delivered = await pushToDevices(db, devices, run, occasion, facts, prefs.preview);
    return delivered > 0 ? "pushed" : "not delivered";
  }
  const ranMs = facts.startedAt ? Date.now() - facts.startedAt.getTime() : 0;
  if (ranMs < getConfig().notify.emailAfterMs) return "short reply";
  return emailNotice(run, occasion, facts, prefs.preview);
}

async function pushToDevices(
  db: Db,
  devices: StoredPushSubscription[],
  run: NoticeRun,
  occasion: NoticeOccasion,
  facts: NoticeFacts,
  preview: boolean,
) {
  const vapid = getConfig().notify.vapid!;
  const text = noticeText(occasion, facts, preview);
  const payload = JSON.stringify({
    title: text.title,
    body: text.body,
    // The service worker opens this (public/sw.js); one notice per run and occasion replaces the last.
    url: `/nuvara/${run.conversationId}`,
    tag: `reply-${run.id}`,
  });
  const sent = await Promise.all(
    devices.map(async (device) => {
      const outcome = await sendPush(vapid, device, payload);
      if (outcome.sent) {
        await markSubscriptionUsed(db, device.id);
        return true;
      }
      if (outcome.gone) {
        log().info({ device: device.id, why: outcome.why }, "a push subscription is gone; dropped it");
        await dropExpiredSubscription(db, device.id);
      } else {
        log().warn({ device: device.id, why: outcome.why }, "a push message was not accepted");
      }
      return false;
    }),
  );
  return sent.filter(Boolean).length;
}

async function emailNotice(
  run: NoticeRun,
  occasion: NoticeOccasion,
  facts: NoticeFacts,
  preview: boolean,
): Promise<NoticeOutcome> {
  const { smtp, appOrigin } = getConfig();
  const account = await getAccountDetails(run.uid);
  // Only to an address the user proved is theirs: an opt-in must not send mail to someone else's.
  if (!account.email || !account.emailVerified) return "no verified email";
  const text = noticeText(occasion, facts, preview);
  const link = appOrigin ? `${appOrigin}/nuvara/${run.conversationId}` : undefined;
  await sendNoticeMail(smtp!, noticeSender(smtp!, appOrigin), {
    to: account.email,
    subject: `${text.headline}: ${text.title}`,
    text: [
      `${text.headline} in your chat "${text.title}".`,
      ...(text.preview ? ["", text.preview] : []),
      "",
      link ? `Open the chat: ${link}` : "Open the Assistant to read it.",
      "",
      "You get this email because you chose it in your dashboard's notification settings.",
    ].join("\n"),
  });
  return "emailed";
}
