import { memo, useEffect, useState, useSyncExternalStore, type ReactNode } from "react";
import ReactMarkdown, { type Components, type Options } from "react-markdown";
import remarkGfm from "remark-gfm";
import { useHighlightedCode } from "./code-highlight";
import { citationComponents } from "./citation-links";
import { rehypeCitations } from "./citations";
import { CopyButton } from "./copy-button";
import { splitBlocks } from "./markdown-blocks";
import { markdownVerdict } from "./markdown-budget";
import { hasMath, normalizeMathDelimiters } from "./math-text";
import { PlainOnError, PlainReply, safeUrl } from "./markdown-plain";
import { ScrollRegion } from "./scroll-region";

/**
 * Model output as Markdown (GFM: tables, task lists, strikethrough,
 * autolinks), rendered so that it cannot act on the page: a prompt
 * injection controls this text.
 *
 * - Raw HTML is shown as text, never parsed (no rehype-raw; see remarkHtmlAsText).
 * - Links keep only http(s) and mailto targets and open in a new tab with
 *   rel="noopener noreferrer"; anything else (javascript:, data:, relative) is plain text.
 * - Images are never loaded: an image URL could carry the conversation to
 *   someone's server. They become ordinary links the user may choose to open.
 * - Rendering is bounded (ADR 050): a reply the parser would take long over, or
 *   nest deep enough to overflow the stack, is shown as plain text
 *   (./markdown-budget.ts), and a reply that fails to render anyway falls
 *   back to plain text too, so one message can never fail a page.
 * - Code blocks are highlighted in the browser only, once their language's
 *   grammar is loaded (./code-highlight.ts, ADR 051); until then, and on the
 *   server, they show as plain preformatted text.
 * - A reply is rendered block by block (./markdown-blocks.ts, ADR 082): each
 *   block is memoized by its source, so while a reply streams only the block
 *   being written is parsed again, and that open block waits for its math and
 *   highlighting until it is finished.
 *
 * Each block is one ReactMarkdown call with the plugins below: a transform of
 * the rendered text (a rehype plugin) goes into `rehypePlugins` and applies
 * to every block alike.
 */

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

const FLOW_PARENTS = new Set(["root", "blockquote", "listItem", "footnoteDefinition"]);

/** remark plugin: every raw HTML node becomes literal text (in a paragraph where it stood as a block). */
function remarkHtmlAsText() {
  return (tree: MdNode) => {
    const visit = (node: MdNode) => {
      // Leaves (text, code, math) keep having no `children` at all: an undefined one trips mdast-util-to-hast.
      if (!node.children) return;
      node.children = node.children.map((child) => {
        if (child.type !== "html") {
          visit(child);
          return child;
        }
        const text = { type: "text", value: child.value ?? "" };
        return FLOW_PARENTS.has(node.type) ? { type: "paragraph", children: [text] } : text;
      });
    };
    visit(tree);
  };
}

interface HastNode {
  type: string;
  value?: string;
  children?: HastNode[];
  properties?: { className?: unknown };
}

function hastText(node: HastNode | undefined): string {
  if (!node) return "";
  if (node.type === "text") return node.value ?? "";
  return (node.children ?? []).map(hastText).join("");
}

function codeLanguage(pre: HastNode | undefined): string | null {
  const code = pre?.children?.find((child) => child.type === "element");
  const classes = code?.properties?.className;
  const language = Array.isArray(classes)
    ? classes.find((name): name is string => typeof name === "string" && name.startsWith("language-"))
    : undefined;
  return language ? language.slice("language-".length) : null;
}

/**
 * A fenced code block with its language and a copy button. Only blocks that
 * name their language are highlighted (guessing is slow and often wrong);
 * the highlighted code has the same text as `children`, so only colours change.
 */
function CodeBlock({
  language,
  code,
  open,
  children,
}: {
  language: string | null;
  code: string;
  /** Still being written: shown plain, highlighted once it is finished. */
  open: boolean;
  children: ReactNode;
}) {
  const highlighted = useHighlightedCode(open ? null : language, code);
  return (
    <div className="code-block">
      <div className="code-block-bar">
        <span>{language ?? "code"}</span>
        <CopyButton text={code.replace(/\n$/, "")} label="Copy code" />
      </div>
      <ScrollRegion label="Code" className="code-scroll">
        <pre>{highlighted ? <code className={`language-${language} hljs`}>{highlighted}</code> : children}</pre>
      </ScrollRegion>
    </div>
  );
}

const components: Components = {
  a({ href, children }) {
    const target = safeUrl(href);
    if (!target) return <span className="md-inert-link">{children}</span>;
    return (
      <a href={target} target="_blank" rel="noopener noreferrer">
        {children}
      </a>
    );
  },
  img({ src, alt }) {
    const target = typeof src === "string" ? safeUrl(src) : null;
    const label = alt ? `Image: ${alt}` : "Image";
    if (!target) return <span className="md-image-link">[{label}]</span>;
    return (
      <a className="md-image-link" href={target} target="_blank" rel="noopener noreferrer" title={target}>
        [{label}]
      </a>
    );
  },
  pre({ node, children }) {
    const hast = node as unknown as HastNode | undefined;
    return (
      <CodeBlock language={codeLanguage(hast)} code={hastText(hast)} open={false}>
        {children}
      </CodeBlock>
    );
  },
  // KaTeX's display math (a block-level span around <math display="block">): as wide content, it scrolls in its box.
  span({ node, className, children }) {
    const hast = node as unknown as HastNode | undefined;
    const math = hast?.children?.find((child) => child.type === "element") as
      (HastNode & { tagName?: string; properties?: { display?: unknown } }) | undefined;
    if (className !== "katex" || math?.tagName !== "math" || math.properties?.display !== "block")
      return <span className={className}>{children}</span>;
    return (
      <ScrollRegion label="Math" className="math-scroll">
        <span className={className}>{children}</span>
      </ScrollRegion>
    );
  },
  table({ children }) {
    return (
      <ScrollRegion label="Table" className="md-table">
        <table>{children}</table>
      </ScrollRegion>
    );
  },
  // "[n]" citing a source links to it (./citation-links.tsx).
  ...citationComponents,
};

/** The same, for the block being written: its code is not highlighted yet. */
const openComponents: Components = {
  ...components,
  pre({ node, children }) {
    const hast = node as unknown as HastNode | undefined;
    return (
      <CodeBlock language={codeLanguage(hast)} code={hastText(hast)} open>
        {children}
      </CodeBlock>
    );
  },
};

const remarkPlugins: Options["remarkPlugins"] = [remarkGfm, remarkHtmlAsText];

/** remark-math and rehype-katex, for a reply with math (./markdown-math.tsx), or nothing. */
export type MathPlugins = Pick<Options, "remarkPlugins" | "rehypePlugins">;

/** One block as Markdown, or as plain text if it fails to parse. */
function renderBlock(text: string, open: boolean, math?: MathPlugins): ReactNode {
  try {
    // Called as a function, not as an element, so that parsing happens inside this try:
    // react-markdown's Markdown is a plain function of its props (no hooks).
    return ReactMarkdown({
      children: text,
      remarkPlugins: math ? [...(remarkPlugins ?? []), ...(math.remarkPlugins ?? [])] : remarkPlugins,
      rehypePlugins: [rehypeCitations, ...(math?.rehypePlugins ?? [])],
      urlTransform: (url) => safeUrl(url) ?? "",
      components: open ? openComponents : components,
    });
  } catch {
    return <PlainReply>{text}</PlainReply>;
  }
}

/**
 * A block, rendered again only when its text (or whether it is finished, or
 * math arriving) changes: the finished blocks of a streaming reply stay as
 * they are while the last one grows.
 */
const MarkdownBlock = memo(function MarkdownBlock({
  text,
  open,
  math,
}: {
  text: string;
  open: boolean;
  math?: MathPlugins;
}): ReactNode {
  return renderBlock(text, open, math);
});

/**
 * The pipeline behind ./markdown.tsx's Markdown, a chunk of its own in the
 * browser (ADR 051). Memoized: Markdown defers its text, so each streamed
 * update first renders it with the text it already shows, which then costs
 * nothing.
 */
export const RenderedMarkdown = memo(function RenderedMarkdown({
  children,
  math,
  streaming = false,
}: {
  children: string;
  /** The server passes KaTeX's plugins for a reply with math; the browser loads them itself. */
  math?: MathPlugins;
  /** The reply is being written: its last block is still open. */
  streaming?: boolean;
}): ReactNode {
  return (
    <PlainOnError text={children}>
      <MarkdownBlocks text={children} given={math} streaming={streaming} />
    </PlainOnError>
  );
});

function MarkdownBlocks({ text, given, streaming }: { text: string; given?: MathPlugins; streaming: boolean }) {
  const needsMath = hasMath(text);
  // A reply first shown finished (the server's, hydrating) waits for KaTeX, so the server's math stays meanwhile.
  // One that streamed here never does, not even once it ends: waiting would swap the whole reply for its plain
  // text (the Suspense fallback) when its first math comes at the very end. Its math shows as source until then.
  const [streamedHere] = useState(streaming);
  const math = useMathPlugins(needsMath, given, !streaming && !streamedHere);
  if (!markdownVerdict(text).ok) return <PlainReply>{text}</PlainReply>;
  const blocks = splitBlocks(needsMath ? normalizeMathDelimiters(text) : text);
  const last = blocks.length - 1;
  return (
    <div className="markdown">
      {blocks.map((block, index) => {
        const open = streaming && index === last;
        // Blocks are keyed by position: a streaming reply only ever adds blocks at its end.
        return (
          <MarkdownBlock key={index} text={block} open={open} math={!open && block.includes("$$") ? math : undefined} />
        );
      })}
    </div>
  );
}

/*
 * KaTeX's plugins in the browser: a chunk of its own (ADR 056), loaded the
 * first time a reply has math. Until it is there, a streaming reply shows its
 * math as source; a finished one suspends, so that hydrating a reply the
 * server rendered with math keeps the server's HTML until it can match it.
 */
let loadedMath: MathPlugins | null = null;
let mathFailed = false;
let mathLoading: Promise<unknown> | null = null;
const mathListeners = new Set<() => void>();

function subscribeMath(listener: () => void) {
  mathListeners.add(listener);
  return () => void mathListeners.delete(listener);
}

function loadMath(): Promise<unknown> {
  mathLoading ??= import("./markdown-math").then(
    (module) => {
      loadedMath = module.mathPlugins;
      for (const listener of mathListeners) listener();
    },
    () => {
      // The reply stays readable with its math as source.
      mathFailed = true;
      for (const listener of mathListeners) listener();
    },
  );
  return mathLoading;
}

function useMathPlugins(needed: boolean, given: MathPlugins | undefined, wait: boolean): MathPlugins | undefined {
  // The same on hydration as after: the server passes its plugins in `given`, and never reads this.
  const loaded = useSyncExternalStore(
    subscribeMath,
    () => loadedMath,
    () => loadedMath,
  );
  useEffect(() => {
    if (needed && !given && !loaded) void loadMath();
  }, [needed, given, loaded]);
  if (given || !needed) return given;
  // Never on the server, which renders what it has (it passes `given` for every reply with math).
  if (!loaded && wait && !mathFailed && typeof window !== "undefined") throw loadMath();
  return loaded ?? undefined;
}
