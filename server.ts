/**
 * The server build's entry (remix.config.js `server`): the build Remix would
 * make, with every route's action behind the one origin check (ADR 047).
 * It lives in the build itself because operators run
 * plain `remix-serve build/index.js`: there is no server of ours to put a
 * middleware in, and `remix-serve` hands every request to these routes.
 */
import * as build from "@remix-run/dev/server-build";
import { validateConfigurationAtBoot } from "~/boot.server";
import { handOriginCheckToGuard, withOriginGuard } from "~/http/origin-guard.server";
import { redactAccessLog } from "~/log/access-log.server";
import { withInstrumentation } from "~/metrics/instrument-routes.server";

export * from "@remix-run/dev/server-build";

// A local export takes precedence over the re-exported `routes` above.
// Outside the guard, so its refusals are timed and logged too (metrics and request ids: ADR 052).
export const routes = withInstrumentation(withOriginGuard(build.routes));
// Remix's own document-only check would answer a bare 500 before the guard could say 403.
handOriginCheckToGuard();

// Before remix-serve listens: a misconfigured server exits with the reason instead of serving 500s.
validateConfigurationAtBoot();

// remix-serve's access log (stdout) would print every URL whole: searches and share ids are cut from its lines (ADR 077).
redactAccessLog();
