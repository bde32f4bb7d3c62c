import { useOutletContext } from "@remix-run/react";

/**
 * The titles the live conversation list holds, by chat id: the assistant's
 * layout hands them to the chat page below it (an Outlet context), so that a
 * generated title or a rename shows in the chat's header as it shows in the
 * list, without a reload.
 */
export type LiveTitles = ReadonlyMap<string, string>;

/** The chat's title as the list has it now, else the one its page loaded. */
export function useLiveTitle(chatId: string, loaded: string | null): string | null {
  const titles = useOutletContext<LiveTitles | undefined>();
  return titles?.get(chatId) ?? loaded;
}
