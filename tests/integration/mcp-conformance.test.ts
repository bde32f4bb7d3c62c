import { describe, expect, it } from "vitest";
import { clientScenarios, isAuthScenario, runScenario, UNSUPPORTED } from "../../scripts/mcp-conformance";

/**
 * The official MCP conformance suite's client scenarios, run against the
 * app's client and, for OAuth (auth/…), the app's OAuth provider
 * (scripts/mcp-conformance.ts; docs/benchmarks.md holds the table). Every
 * scenario must pass but those listed as not supported, each with its
 * reason; a scenario a newer suite adds fails here until the client does
 * what it asks.
 */

const KNOWN_AUTH = [
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
  "auth/client-credentials-jwt",
  "auth/client-credentials-basic",
];

async function runAll(scenarios: string[]) {
  const results = [];
  for (const scenario of scenarios) results.push(await runScenario(scenario));
  return results;
}

describe("the MCP conformance suite's client scenarios", () => {
  it("lists the scenarios this client is known to pass", async () => {
    const scenarios = await clientScenarios();
    expect(scenarios).toEqual(
      expect.arrayContaining([
        "initialize",
        "tools_call",
        "elicitation-sep1034-client-defaults",
        "sse-retry",
        ...KNOWN_AUTH,
        ...UNSUPPORTED.keys(),
      ]),
    );
  }, 60_000);

  it("passes every scenario that is not about OAuth", async () => {
    const scenarios = (await clientScenarios()).filter((scenario) => !isAuthScenario(scenario));
    const results = await runAll(scenarios);
    expect(results.filter((result) => result.status !== "passed")).toEqual([]);
    expect(results.map((result) => result.scenario)).toEqual(scenarios);
  }, 180_000);

  it("passes every OAuth scenario but those not supported, which are not run", async () => {
    const scenarios = (await clientScenarios()).filter(isAuthScenario);
    const results = await runAll(scenarios);
    const notPassed = results.filter((result) => result.status !== "passed");
    expect(notPassed).toEqual(
      [...UNSUPPORTED].map(([scenario, why]) =>
        expect.objectContaining({ scenario, status: "not supported", notes: [why] }),
      ),
    );
    expect(results.filter((result) => result.status === "passed").map((result) => result.scenario)).toEqual(
      expect.arrayContaining(KNOWN_AUTH),
    );
  }, 600_000);
});
