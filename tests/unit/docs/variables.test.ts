import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { CONFIG_VARIABLES } from "~/config.server";

/**
 * docs/configuration.md documents every variable, and .env.example lists it.
 * A variable added to the configuration without both fails here by name.
 */
const CONFIGURATION = fs.readFileSync("docs/configuration.md", "utf8");
const ENV_EXAMPLE = fs.readFileSync(".env.example", "utf8");
/** Set by the runtime, not by an operator. */
const NOT_OPERATORS = new Set(["NODE_ENV", "REMIX_DEV_ORIGIN"]);

describe("every configuration variable is documented", () => {
  const variables = CONFIG_VARIABLES.filter((name) => !NOT_OPERATORS.has(name));

  it("reads the variables the app is known to take", () => {
    expect(variables).toEqual(
      expect.arrayContaining(["TRUST_PROXY", "METRICS_TOKEN", "AUTH_PROVIDERS", "TOOL_RUN_RATE_LIMIT_PER_MINUTE"]),
    );
  });

  it("in docs/configuration.md", () => {
    expect(variables.filter((name) => !CONFIGURATION.includes(`\`${name}\``))).toEqual([]);
  });

  it("in .env.example", () => {
    expect(variables.filter((name) => !new RegExp(`^#?\\s*${name}=`, "m").test(ENV_EXAMPLE))).toEqual([]);
  });
});
