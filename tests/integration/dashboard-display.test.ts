import { describe, expect, it } from "vitest";
import { formatDateTime, formatDay, formatDuration } from "~/components/dashboard/format";
import { initials, planName } from "~/components/dashboard/plan";
import { niceCeiling } from "~/components/dashboard/usage-chart";

/** How the dashboard words and draws its figures (pure functions, no backends). */
describe("plan names", () => {
  it("reads the stripeRole as a plan: none is Free, others capitalised", () => {
    expect(planName("")).toBe("Free");
    expect(planName("premium")).toBe("Premium");
    expect(planName("admin")).toBe("Admin");
    expect(planName("team-plus")).toBe("Team-plus");
  });
});

describe("avatar initials", () => {
  it("takes the first and last names' letters, else the email's first", () => {
    expect(initials("Ada King Lovelace", "a@example.com")).toBe("AL");
    expect(initials("ada", null)).toBe("AD");
    expect(initials(null, "zed@example.com")).toBe("Z");
    expect(initials("🦊 Fox", null)).toBe("🦊F");
  });
});

describe("chart and time formats", () => {
  it("rounds an axis up to 1, 2 or 5 times a power of ten", () => {
    expect([0, 1, 3, 7, 12, 250, 999, 1_001].map(niceCeiling)).toEqual([1, 1, 5, 10, 20, 500, 1_000, 2_000]);
  });

  it("writes times in UTC whatever the machine's zone, and durations in hours and minutes", () => {
    expect(formatDateTime("2026-03-04T05:06:07Z")).toBe("4 Mar 2026, 05:06 UTC");
    expect(formatDay("2026-12-31")).toBe("31 Dec");
    expect(formatDuration(5 * 3_600_000 + 12 * 60_000 + 59_000)).toBe("5 h 12 min");
    expect(formatDuration(3 * 3_600_000)).toBe("3 h");
    expect(formatDuration(30_000)).toBe("less than a minute");
  });
});
