import { describe, expect, it } from "vitest";
import { lookupRole, parseDailyLimits, parseMessageMaxChars, parseRoleModels, roleKey } from "~/settings/role-settings";

describe("per-role settings", () => {
  it("default quotas: none 20, any other role 200, admin unlimited", () => {
    const limits = parseDailyLimits(undefined);
    expect(lookupRole(limits, roleKey({ role: "", isAdmin: false }))).toBe(20);
    expect(lookupRole(limits, roleKey({ role: "premium", isAdmin: false }))).toBe(200);
    expect(lookupRole(limits, roleKey({ role: "admin", isAdmin: true }))).toBeNull();
  });

  it("an unverified admin counts as any other role, not as admin", () => {
    expect(lookupRole(parseDailyLimits(undefined), roleKey({ role: "admin", isAdmin: false }))).toBe(200);
  });

  it("overrides merge with the defaults; unlimited is a value, not a gap", () => {
    const limits = parseDailyLimits("premium=1000; *=50 ;none=unlimited");
    expect(lookupRole(limits, "premium")).toBe(1000);
    expect(lookupRole(limits, "team")).toBe(50);
    expect(lookupRole(limits, "none")).toBeNull();
    expect(lookupRole(limits, "admin")).toBeNull();
  });

  it("refuses malformed settings with a message naming the problem", () => {
    expect(() => parseDailyLimits("premium")).toThrow('"premium" is not role=value');
    expect(() => parseDailyLimits("premium=lots")).toThrow(
      'quota for "premium" must be a whole number or "unlimited", not "lots"',
    );
    expect(() => parseDailyLimits("=5")).toThrow('write "none" for users without one');
    expect(() => parseDailyLimits("a=1;a=2")).toThrow('role "a" is listed twice');
    expect(() => parseRoleModels("none=")).toThrow('no models listed for "none"');
  });

  it("model allow-lists keep Ollama ids with colons", () => {
    const models = parseRoleModels("none=llama3.2:1b, qwen2.5:0.5b;premium=*");
    expect(lookupRole(models, "none")).toEqual(["llama3.2:1b", "qwen2.5:0.5b"]);
    expect(lookupRole(models, "premium")).toBe("*");
    expect(lookupRole(models, "other")).toBeUndefined();
  });

  it("message length caps: 100,000 for everyone unless set, per role like the quotas", () => {
    expect(lookupRole(parseMessageMaxChars(undefined), "none")).toBe(100_000);
    const caps = parseMessageMaxChars("*=100000;none=20000");
    expect(lookupRole(caps, roleKey({ role: "", isAdmin: false }))).toBe(20_000);
    expect(lookupRole(caps, roleKey({ role: "premium", isAdmin: false }))).toBe(100_000);
    expect(() => parseMessageMaxChars("none=lots")).toThrow(
      'message length for "none" must be a whole number from 1 to 1000000, not "lots"',
    );
    expect(() => parseMessageMaxChars("none=0")).toThrow(/from 1 to 1000000/);
    expect(() => parseMessageMaxChars("none=2000000")).toThrow(/from 1 to 1000000/);
  });
});
