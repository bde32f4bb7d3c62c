import { describe, expect, it } from "vitest";
import { formatDateTime } from "~/components/dashboard/format";
import { formatInZone } from "~/components/time/local-time";

describe("times in the reader's zone", () => {
  it("renders UTC exactly as before on the server (so hydration matches)", () => {
    for (const value of ["2026-03-04T05:06:07Z", "2026-12-31T23:59:00Z", "2026-01-01T00:00:00Z"]) {
      expect(formatInZone(value, "UTC")).toBe(formatDateTime(value));
    }
  });

  it("shows another zone with its name, date included", () => {
    expect(formatInZone("2026-03-04T20:06:07Z", "Asia/Tokyo")).toBe("5 Mar 2026, 05:06 GMT+9");
    expect(formatInZone("2026-07-04T12:30:00Z", "America/New_York")).toBe("4 Jul 2026, 08:30 EDT");
    expect(formatInZone("2026-03-04T20:06:07Z", "Asia/Tokyo", "date")).toBe("5 Mar 2026");
  });

  it("shows a dash for nothing or an invalid time", () => {
    expect(formatInZone(null, "UTC")).toBe("—");
    expect(formatInZone("not a time", "UTC")).toBe("—");
  });
});
