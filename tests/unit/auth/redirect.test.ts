import { describe, expect, it } from "vitest";
import { loginPath, safeRedirect } from "~/auth/redirect";

describe("safeRedirect", () => {
  it.each([
    ["/dashboard", "/dashboard"],
    ["/nuvara/abc?x=1#y", "/nuvara/abc?x=1#y"],
    ["/admin/messages?status=new", "/admin/messages?status=new"],
    ["/tools%20page", "/tools%20page"],
    // Percent-encoded, so that it fits in a Location header.
    ["/caf\u00e9/\u0444?q=\u{1F600}", "/caf%C3%A9/%D1%84?q=%F0%9F%98%80"],
    ["/\u202eelpmaxe", "/%E2%80%AEelpmaxe"],
  ])("keeps the site path %s", (input, expected) => {
    expect(safeRedirect(input)).toBe(expected);
  });

  it.each([
    "//evil.example",
    "//evil.example/path",
    "/\\evil.example",
    "\\\\evil.example",
    "https://evil.example/",
    "http:evil.example",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,hi",
    "%2F%2Fevil.example",
    "/%2F/evil.example",
    "/%2Fevil.example",
    "%252F%252Fevil.example",
    "/%5Cevil.example",
    "/%5C%5Cevil.example",
    "/\tevil",
    "/\nevil",
    "/%09/evil.example",
    "/%0A/evil.example",
    "evil.example",
    "",
    "%E0%A4%A",
    "/" + "a".repeat(3000),
  ])("refuses %j", (input) => {
    expect(safeRedirect(input)).toBe("/");
  });

  it("refuses a lone surrogate, which has no encoding", () => {
    expect(safeRedirect("/a\ud800")).toBe("/");
  });

  it("refuses non-strings and uses the given fallback", () => {
    expect(safeRedirect(null)).toBe("/");
    expect(safeRedirect(undefined, "/tools")).toBe("/tools");
    expect(safeRedirect(["/x"])).toBe("/");
  });

  it("loginPath encodes the whole path and query as one value", () => {
    expect(loginPath(new URL("http://x/dashboard?tab=a&b=c"))).toBe("/login?redirectTo=%2Fdashboard%3Ftab%3Da%26b%3Dc");
  });
});
