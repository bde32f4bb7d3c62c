import { readChunks } from "~/components/chat/ui-message-stream";

/** Milliseconds from POST /api/chat to the reply's first text chunk (the whole reply is read). */
export async function firstTextMs(baseUrl: string, cookie: string, body: Record<string, unknown>): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/api/chat`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: baseUrl, cookie },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) throw new Error(`chat: ${response.status} ${await response.text()}`);
  let at = NaN;
  for await (const chunk of readChunks(response.body))
    if (Number.isNaN(at) && chunk.type === "text-delta") at = performance.now() - started;
  return at;
}
