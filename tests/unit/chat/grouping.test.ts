import { describe, expect, it } from "vitest";
import { arrangeConversations, groupByDay } from "~/chat/grouping";

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

describe("arrangeConversations", () => {
  const now = new Date("2026-03-10T12:00:00Z");
  const item = (id: string, extra: { pinned?: boolean; folderId?: string | null; updatedAt?: string } = {}) => ({
    id,
    updatedAt: extra.updatedAt ?? "2026-03-10T09:00:00Z",
    ...extra,
  });

  it("puts pinned chats first, then every folder's chats (empty folders too), then the loose ones by day", () => {
    const folders = [
      { id: "f1", name: "Work" },
      { id: "f2", name: "Empty" },
    ];
    const arranged = arrangeConversations(
      [
        item("a", { pinned: true, folderId: "f1" }),
        item("b", { folderId: "f1" }),
        item("c"),
        item("d", { folderId: "gone" }),
        item("e", { updatedAt: "2026-03-09T09:00:00Z" }),
      ],
      folders,
      now,
      "UTC",
    );
    expect(arranged.pinned.map((row) => row.id)).toEqual(["a"]);
    expect(arranged.folders.map((group) => [group.folder.name, group.items.map((row) => row.id)])).toEqual([
      ["Work", ["b"]],
      ["Empty", []],
    ]);
    expect(arranged.days.map((group) => [group.label, group.items.map((row) => row.id)])).toEqual([
      ["Today", ["c", "d"]],
      ["Yesterday", ["e"]],
    ]);
  });
});
