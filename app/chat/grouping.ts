/**
 * The sidebar's groups: Today, Yesterday, Previous 7 days, Older, by the
 * conversation's last activity in the reader's own time zone.
 */
export const GROUP_LABELS = ["Today", "Yesterday", "Previous 7 days", "Older"] as const;
export type GroupLabel = (typeof GROUP_LABELS)[number];

export interface DatedItem {
  updatedAt: string | Date;
}

/** Calendar date of `instant` in `timeZone`, as days since the epoch (so differences count days). */
function dayNumber(instant: Date, timeZone: string | undefined): number {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(instant);
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  return Date.UTC(get("year"), get("month") - 1, get("day")) / 86_400_000;
}

export function groupByDay<T extends DatedItem>(
  items: readonly T[],
  now: Date,
  timeZone?: string,
): Array<{ label: GroupLabel; items: T[] }> {
  const today = dayNumber(now, timeZone);
  const groups = new Map<GroupLabel, T[]>(GROUP_LABELS.map((label) => [label, []]));
  for (const item of items) {
    const age = today - dayNumber(new Date(item.updatedAt), timeZone);
    const label: GroupLabel = age <= 0 ? "Today" : age === 1 ? "Yesterday" : age <= 7 ? "Previous 7 days" : "Older";
    groups.get(label)!.push(item);
  }
  return GROUP_LABELS.map((label) => ({ label, items: groups.get(label)! })).filter((group) => group.items.length > 0);
}

export interface OrganisedItem extends DatedItem {
  pinned?: boolean;
  folderId?: string | null;
}

/**
 * The list as the sidebar shows it (docs/decisions/085): pinned chats first,
 * then each folder's chats (every folder, in the order given, empty ones
 * too), then the loose chats by day. A pinned chat is shown among the pinned
 * only; one whose folder is not known is loose.
 */
export function arrangeConversations<T extends OrganisedItem, F extends { id: string }>(
  items: readonly T[],
  folders: readonly F[],
  now: Date,
  timeZone?: string,
): { pinned: T[]; folders: Array<{ folder: F; items: T[] }>; days: Array<{ label: GroupLabel; items: T[] }> } {
  const known = new Set(folders.map((folder) => folder.id));
  const pinned = items.filter((item) => item.pinned);
  const filed = items.filter((item) => !item.pinned && item.folderId && known.has(item.folderId));
  const loose = items.filter((item) => !item.pinned && !(item.folderId && known.has(item.folderId)));
  return {
    pinned,
    folders: folders.map((folder) => ({ folder, items: filed.filter((item) => item.folderId === folder.id) })),
    days: groupByDay(loose, now, timeZone),
  };
}
