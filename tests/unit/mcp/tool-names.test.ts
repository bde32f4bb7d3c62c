import { describe, expect, it } from "vitest";
import { FUNCTION_NAME, functionNameFor, McpToolNames } from "~/mcp/tool-names.server";

describe("function names for MCP tools", () => {
  it("is slug__tool when that is already a valid function name", () => {
    expect(functionNameFor("github", "create_issue")).toBe("github__create_issue");
  });

  it("cleans and hashes names a provider would refuse, the same way every time", () => {
    const name = functionNameFor("files", "read file.v2/fast");
    expect(name).toMatch(FUNCTION_NAME);
    expect(name).toMatch(/^files__read_file_v2_fast_[0-9a-f]{8}$/);
    expect(functionNameFor("files", "read file.v2/fast")).toBe(name);
  });

  it("shortens long names to 64 characters, keeping them apart", () => {
    const long = `a${"b".repeat(100)}`;
    const one = functionNameFor("server", `${long}1`);
    const two = functionNameFor("server", `${long}2`);
    expect(one).toMatch(FUNCTION_NAME);
    expect(two).toMatch(FUNCTION_NAME);
    expect(one).not.toBe(two);
  });

  it("keeps two tools whose names clean to the same text apart, whatever their order", () => {
    const names = new McpToolNames();
    const dotted = names.add("s", "a.b");
    const plain = names.add("s", "a_b");
    expect(plain).toBe("s__a_b");
    expect(dotted).not.toBe(plain);
    const other = new McpToolNames();
    expect(other.add("s", "a_b")).toBe(plain);
    expect(other.add("s", "a.b")).toBe(dotted);
  });

  it("keeps the same tool name on two servers apart, and leads back to server and tool", () => {
    const names = new McpToolNames();
    const a = names.add("alpha", "search");
    const b = names.add("beta", "search");
    expect([a, b]).toEqual(["alpha__search", "beta__search"]);
    expect(names.lookup(b)).toEqual({ server: "beta", tool: "search" });
    expect(names.lookup("calculator")).toBeUndefined();
    expect(names.add("alpha", "search")).toBe(a);
  });

  it("never takes a reserved name (a built-in tool's id)", () => {
    const names = new McpToolNames(["x__y"]);
    const name = names.add("x", "y");
    expect(name).not.toBe("x__y");
    expect(name).toMatch(FUNCTION_NAME);
    expect(names.lookup(name)).toEqual({ server: "x", tool: "y" });
  });
});
