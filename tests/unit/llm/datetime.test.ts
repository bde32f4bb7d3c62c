import { describe, expect, it } from "vitest";
import { describeDateTime, isValidTimeZone } from "../../../app/llm/datetime";

// A Sunday afternoon in UTC; already Monday in Kiritimati (UTC+14).
const NOW = new Date("2024-03-10T14:30:05.123Z");

describe("describeDateTime", () => {
  it("gives local wall time with its offset, the UTC instant, weekday and a readable form", () => {
    expect(describeDateTime(NOW, "Europe/Paris")).toEqual({
      iso: "2024-03-10T15:30:05+01:00",
      utc: "2024-03-10T14:30:05.123Z",
      human: "Sunday, March 10, 2024 at 3:30:05 PM GMT+1",
      timeZone: "Europe/Paris",
      utcOffset: "+01:00",
      weekday: "Sunday",
    });
  });

  it.each([
    ["America/New_York", "2024-03-10T10:30:05-04:00", "Sunday"], // DST began that morning
    ["Asia/Kolkata", "2024-03-10T20:00:05+05:30", "Sunday"],
    ["Asia/Kathmandu", "2024-03-10T20:15:05+05:45", "Sunday"],
    ["America/St_Johns", "2024-03-10T12:00:05-02:30", "Sunday"],
    ["Pacific/Kiritimati", "2024-03-11T04:30:05+14:00", "Monday"],
    ["UTC", "2024-03-10T14:30:05+00:00", "Sunday"],
  ])("in %s it is %s (%s)", (zone, iso, weekday) => {
    const described = describeDateTime(NOW, zone);
    expect(described.iso).toBe(iso);
    expect(described.weekday).toBe(weekday);
    expect(described.timeZone).toBe(zone);
    expect(described.note).toBeUndefined();
  });

  it("follows daylight saving time across the year", () => {
    const summer = new Date("2024-07-01T12:00:00Z");
    expect(describeDateTime(summer, "Europe/Paris").utcOffset).toBe("+02:00");
    expect(describeDateTime(summer, "America/New_York").utcOffset).toBe("-04:00");
    const winter = new Date("2024-01-15T12:00:00Z");
    expect(describeDateTime(winter, "America/New_York").utcOffset).toBe("-05:00");
  });

  it("falls back to UTC for an invalid zone and says so", () => {
    const described = describeDateTime(NOW, "Mars/Olympus_Mons");
    expect(described.timeZone).toBe("UTC");
    expect(described.iso).toBe("2024-03-10T14:30:05+00:00");
    expect(described.note).toBe('"Mars/Olympus_Mons" is not a valid IANA time zone; this is UTC instead.');
  });

  it("falls back to UTC when no zone is known and says so", () => {
    for (const zone of [undefined, "", "  "]) {
      const described = describeDateTime(NOW, zone);
      expect(described.timeZone).toBe("UTC");
      expect(described.note).toMatch(/not known/);
    }
  });
});

describe("isValidTimeZone", () => {
  it("accepts IANA names and rejects others", () => {
    expect(isValidTimeZone("Europe/Berlin")).toBe(true);
    expect(isValidTimeZone("UTC")).toBe(true);
    expect(isValidTimeZone("Europe/Atlantis")).toBe(false);
    expect(isValidTimeZone("not a zone")).toBe(false);
  });
});
