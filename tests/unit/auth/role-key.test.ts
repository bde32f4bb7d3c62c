import { describe, expect, it } from "vitest";
import { canHoldRole, roleKeyProblem } from "~/auth/role-key";

/** Firestore's document-id rules, as users/{email} needs them (docs/decisions/075). */
describe("which addresses can key users/{email}", () => {
  it("takes ordinary addresses, Unicode ones and ones up to 1,500 bytes", () => {
    for (const email of [
      "user@example.com",
      "o'brien+tag@example.co.uk",
      "ünïcödé@example.com",
      "__x@example.com",
      `${"a".repeat(1_488)}@example.com`,
    ]) {
      expect(roleKeyProblem(email)).toBeNull();
    }
  });

  it("refuses a “/”, “.” and “..”, `__…__`, over 1,500 bytes, broken Unicode and nothing", () => {
    const cases: Array<[string, RegExp]> = [
      ["a/b@example.com", /contains “\/”/],
      ["x/users/y@example.com", /contains “\/”/],
      [".", /“\.” or “\.\.”/],
      ["..", /“\.” or “\.\.”/],
      ["__a@example.com__", /starts and ends with “__”/],
      [`${"a".repeat(1_489)}@example.com`, /longer than 1,500 bytes/],
      [`${"é".repeat(745)}@example.com`, /longer than 1,500 bytes/],
      ["a\ud800@example.com", /not valid Unicode/],
      ["", /empty/],
    ];
    for (const [email, reason] of cases) {
      expect(roleKeyProblem(email)).toMatch(reason);
      expect(canHoldRole(email)).toBe(false);
    }
  });
});
