/**
 * PostgreSQL notifications, routed by channel to whoever handles them. The
 * one listening connection per process lives in app/auth/invalidation.server.ts
 * (it LISTENs on every channel in NOTICE_CHANNELS); handlers register here.
 */

export const RUNS_NOTICE_CHANNEL = "nuvara_runs";
export const NOTICE_CHANNELS = [RUNS_NOTICE_CHANNEL] as const;

const handlers = new Map<string, (payload: string) => void>();

export function onNotice(channel: (typeof NOTICE_CHANNELS)[number], handler: (payload: string) => void) {
  handlers.set(channel, handler);
}

export function dispatchNotice(channel: string, payload: string | undefined) {
  handlers.get(channel)?.(payload ?? "");
}
