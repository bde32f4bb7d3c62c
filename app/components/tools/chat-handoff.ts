/**
 * Hands a prompt tool's first message to the assistant page: its composer
 * keeps a draft per conversation in sessionStorage under this key
 * (app/components/chat/drafts.ts), so the new chat opens with the message
 * ready to read, change and send. tests/e2e/tools.spec.ts checks that the
 * two pages still agree.
 */
const DRAFT_KEY = (conversationId: string) => `nuvara:draft:${conversationId}`;

export function prepareFirstMessage(conversationId: string, text: string): boolean {
  try {
    window.sessionStorage.setItem(DRAFT_KEY(conversationId), text);
    return true;
  } catch {
    // Storage disabled: the page shows the message to copy instead.
    return false;
  }
}
