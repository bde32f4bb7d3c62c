import { createHash } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { leadingZeroBits, WORK_FIELDS, workInput, type ContactChallenge } from "~/data/contact-work";

/**
 * The work a visitor's browser does before posting the contact form
 * (docs/decisions/076), done here with Node's SHA-256: a challenge from the
 * home page's loader, and the nonce that answers it.
 */
export function solveInNode(challenge: Pick<ContactChallenge, "token" | "difficulty">): string {
  for (let nonce = 0; ; nonce++) {
    const hash = createHash("sha256")
      .update(workInput(challenge.token, String(nonce)))
      .digest();
    if (leadingZeroBits(hash) >= challenge.difficulty) return String(nonce);
  }
}

export function workFields(challenge: ContactChallenge): Record<string, string> {
  return { [WORK_FIELDS.challenge]: challenge.token, [WORK_FIELDS.nonce]: solveInNode(challenge) };
}

/** In-process (integration tests): the home page's loader, as a visitor's page load runs it. */
export async function visitorWork(): Promise<Record<string, string>> {
  const { loader } = await import("~/routes/_index");
  const { appRequest } = await import("./app-env");
  const response = (await loader({ request: appRequest("/"), params: {}, context: {} })) as Response;
  const { contactChallenge } = (await response.json()) as { contactChallenge: ContactChallenge | null };
  if (!contactChallenge) throw new Error("The home page gave no contact challenge.");
  return workFields(contactChallenge);
}

/**
 * Over HTTP (browser tests' API calls): the home page's loader data, as the
 * page's own script reads it. A signed-in context gets none, and needs none.
 */
export async function visitorWorkOver(request: APIRequestContext): Promise<Record<string, string>> {
  const response = await request.get("/?_data=routes%2F_index");
  const { contactChallenge } = (await response.json()) as { contactChallenge: ContactChallenge | null };
  return contactChallenge ? workFields(contactChallenge) : {};
}
