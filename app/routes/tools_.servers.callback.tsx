import type { LoaderFunctionArgs } from "@remix-run/node";
import { signInCallback } from "~/tools/server-oauth.server";

/** Where a tool server's authorization server sends the user back (docs/decisions/092). */
export const loader = ({ request }: LoaderFunctionArgs) => signInCallback(request);
