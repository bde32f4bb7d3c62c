import { describe, expect, it } from "vitest";
import { groupByDay } from "~/chat/grouping";

const at = (iso: string) => ({ id: iso, updatedAt: iso });

describe("groupByDay", () => {
  const now = new Date("2025-03-15T10:00:00Z");

  it("sorts conversations into Today, Yesterday, Previous 7 days and Older, keeping their order", () => {
    const items = [
      at("2025-03-15T09:00:00Z"),
      at("2025-03-15T00:10:00Z"),
      at("2025-03-14T23:00:00Z"),
      at("2025-03-08T12:00:00Z"),
      at("2025-03-07T12:00:00Z"),
    ];
    expect(groupByDay(items, now, "UTC").map((group) => [group.label, group.items.map((item) => item.id)])).toEqual([
      ["Today", ["2025-03-15T09:00:00Z", "2025-03-15T00:10:00Z"]],
      ["Yesterday", ["2025-03-14T23:00:00Z"]],
      ["Previous 7 days", ["2025-03-08T12:00:00Z"]],
      ["Older", ["2025-03-07T12:00:00Z"]],
    ]);
  });

  it("uses the reader's calendar: 23:00 UTC yesterday is today in Tokyo", () => {
    const items = [at("2025-03-14T23:00:00Z")];
    expect(groupByDay(items, now, "UTC")[0].label).toBe("Yesterday");
    expect(groupByDay(items, now, "Asia/Tokyo")[0].label).toBe("Today");
  });

  it("leaves out empty groups", () => {
    expect(groupByDay([], now, "UTC")).toEqual([]);
  });
});
