import { lazy, memo, Suspense, useDeferredValue, type ReactNode } from "react";
import { mathPlugins as serverMathPlugins } from "./markdown-math.server";
import { PlainOnError, PlainReply } from "./markdown-plain";
import { RenderedMarkdown as ServerRenderedMarkdown } from "./markdown-render.server";
import { replyShown } from "./show-pacer";
import { useBrowserLayoutEffect } from "./use-browser-layout-effect";
import { hasMath } from "./math-text";

export { PlainReply, safeUrl } from "./markdown-plain";

/**
 * A reply as safe Markdown (./markdown-render.tsx says what "safe" means).
 *
 * The Markdown pipeline (react-markdown, remark-gfm) is most of the
 * assistant page's code, and a page needs it only once it shows a reply, so
 * in the browser it is a chunk of its own, left out of the first load
 * (ADR 051):
 *
 * - The server renders it in place (the `.server` import is empty in the
 *   browser, so the server renders the very same pipeline).
 * - Hydrating a reply the server rendered waits, inside Suspense, for the
 *   chunk: React keeps the server's HTML on screen meanwhile, so nothing
 *   moves or flashes. `memo` keeps a parent's re-render (with the same text)
 *   from forcing that boundary to drop the server's HTML before then.
 * - The chunk is fetched as soon as the browser is idle after loading, so a
 *   first reply streamed into an empty chat rarely waits for it; if it does,
 *   the text shows plain (PlainReply) for that moment.
 * - A reply with math also needs KaTeX, a chunk the pipeline loads only then
 *   (ADR 056); a finished reply waits for it inside the same Suspense.
 * - `streaming`: the reply is being written, so its last block is still open
 *   (rendered without math and highlighting until it is finished, ADR 082).
 */
const LazyRenderedMarkdown = lazy(() =>
  import("./markdown-render").then((module) => ({ default: module.RenderedMarkdown })),
);

if (typeof window !== "undefined") {
  const preload = () => void import("./markdown-render").catch(() => undefined);
  if ("requestIdleCallback" in window) window.requestIdleCallback(preload, { timeout: 2000 });
  else setTimeout(preload, 200);
}

export const Markdown = memo(function Markdown({
  children,
  streaming = false,
}: {
  children: string;
  streaming?: boolean;
}): ReactNode {
  // A streamed update renders in the background, in slices the browser can interrupt to handle input (ADR 082).
  const text = useDeferredValue(children);
  // Once the newest text is on the page, a streaming reply may be shown again (./show-pacer.ts).
  useBrowserLayoutEffect(() => {
    if (streaming && text === children) replyShown();
  }, [streaming, text, children]);
  // The outer boundary catches a chunk that failed to download: the reply stays readable as text.
  return (
    <PlainOnError text={text}>
      <Suspense fallback={<PlainReply>{text}</PlainReply>}>
        {ServerRenderedMarkdown ? (
          <ServerRenderedMarkdown math={hasMath(text) ? serverMathPlugins : undefined}>{text}</ServerRenderedMarkdown>
        ) : (
          <LazyRenderedMarkdown streaming={streaming}>{text}</LazyRenderedMarkdown>
        )}
      </Suspense>
    </PlainOnError>
  );
});
