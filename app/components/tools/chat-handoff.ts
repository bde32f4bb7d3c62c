/**
 * Hands a prompt tool's first message to the assistant page: a new chat's
 * composer keeps its draft in sessionStorage under this key
 * (app/components/chat/drafts.ts, `new` for a chat not created yet), so the
 * chat opens with the message ready to read, change and send. The tool goes
 * in the URL: the first send carries it (`toolId`) and the server creates
 * the conversation with the tool's instructions then — opening a tool
 * creates nothing. tests/e2e/tools.spec.ts checks that the pages still agree.
 */
const NEW_CHAT_DRAFT_KEY = "nuvara:draft:new";

/** The search parameter /nuvara reads a prompt tool from (app/routes/nuvara._index.tsx). */
export const TOOL_PARAM = "tool";

export function toolChatUrl(toolId: string): string {
  return `/nuvara?${new URLSearchParams({ [TOOL_PARAM]: toolId }).toString()}`;
}

export function prepareFirstMessage(text: string): boolean {
  try {
    window.sessionStorage.setItem(NEW_CHAT_DRAFT_KEY, text);
    return true;
  } catch {
    // Storage disabled: the page shows the message to copy instead.
    return false;
  }
}
