import { describe, expect, it } from "vitest";
import { clientScenarios, isAuthScenario, runScenario } from "../../scripts/mcp-conformance";

/**
 * The official MCP conformance suite's client scenarios, run against the
 * app's client (scripts/mcp-conformance.ts; docs/benchmarks.md holds the
 * table). Every scenario but OAuth's must pass; a scenario a newer suite adds
 * fails here until the client does what it asks.
 */
describe("the MCP conformance suite's client scenarios", () => {
  it("lists the scenarios this client is known to pass", async () => {
    const scenarios = await clientScenarios();
    expect(scenarios).toEqual(
      expect.arrayContaining(["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"]),
    );
  }, 60_000);

  it("passes every scenario but the OAuth ones", async () => {
    const scenarios = (await clientScenarios()).filter((scenario) => !isAuthScenario(scenario));
    const results = [];
    for (const scenario of scenarios) results.push(await runScenario(scenario));
    expect(results.filter((result) => result.status !== "passed")).toEqual([]);
    expect(results.map((result) => result.scenario)).toEqual(scenarios);
  }, 180_000);
});
