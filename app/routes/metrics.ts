import { createHash, timingSafeEqual } from "node:crypto";
import { getConfig } from "~/config.server";
import { apiRoute } from "~/http/api-route.server";
import { scrape } from "~/metrics/metrics.server";

/**
 * GET /metrics: this instance's Prometheus metrics (ADR 052, docs/operations.md),
 * only with `Authorization: Bearer $METRICS_TOKEN`. Without METRICS_TOKEN,
 * and without the right token, it is a 404 like any unknown path, so nobody
 * learns from it whether metrics are on.
 */
function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** Compared in constant time: the digests have one length whatever was sent, so neither length nor prefix leaks. */
function bearerMatches(request: Request, token: string): boolean {
  const header = request.headers.get("Authorization") ?? "";
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return timingSafeEqual(digest(match?.[1] ?? ""), digest(token)) && match !== null;
}

export const loader = apiRoute(async ({ request }) => {
  const token = getConfig().metricsToken;
  if (!token || !bearerMatches(request, token))
    return new Response("Not found.", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  const { body, contentType } = await scrape();
  return new Response(body, { headers: { "Content-Type": contentType } });
});
