import { useCallback, useEffect, useState } from "react";

/**
 * Whether a folder of the conversation list is open. A folder the user
 * closed stays closed on this browser (across reloads and visits): its id is
 * kept in localStorage. The server renders every folder open; the browser
 * closes the remembered ones once it runs.
 */
const STORAGE_KEY = "nuvara:closed-folders";

function closedFolders(): Set<string> {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "[]");
    return new Set(Array.isArray(stored) ? stored.filter((id): id is string => typeof id === "string") : []);
  } catch {
    return new Set();
  }
}

function remember(folderId: string, open: boolean) {
  const closed = closedFolders();
  if (open) closed.delete(folderId);
  else closed.add(folderId);
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify([...closed]));
  } catch {
    // Storage refused (private mode, full): the folder still opens and closes, for this page.
  }
}

export function useFolderExpanded(folderId: string): [boolean, () => void] {
  const [expanded, setExpanded] = useState(true);
  useEffect(() => setExpanded(!closedFolders().has(folderId)), [folderId]);
  const toggle = useCallback(() => {
    const next = !expanded;
    remember(folderId, next);
    setExpanded(next);
  }, [expanded, folderId]);
  return [expanded, toggle];
}
