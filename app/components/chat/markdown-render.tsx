import type { ReactNode } from "react";
import ReactMarkdown, { type Components, type Options } from "react-markdown";
import remarkGfm from "remark-gfm";
import { useHighlightedCode } from "./code-highlight";
import { citationComponents } from "./citation-links";
import { rehypeCitations } from "./citations";
import { CopyButton } from "./copy-button";
import { markdownVerdict } from "./markdown-budget";
import { normalizeMathDelimiters } from "./math-text";
import { PlainOnError, PlainReply, safeUrl } from "./markdown-plain";

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
function CodeBlock({ language, code, children }: { language: string | null; code: string; children: ReactNode }) {
  const highlighted = useHighlightedCode(language, code);
  return (
    <div className="code-block">
      <div className="code-block-bar">
        <span>{language ?? "code"}</span>
        <CopyButton text={code.replace(/\n$/, "")} label="Copy code" />
      </div>
      <pre>{highlighted ? <code className={`language-${language} hljs`}>{highlighted}</code> : children}</pre>
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
      <CodeBlock language={codeLanguage(hast)} code={hastText(hast)}>
        {children}
      </CodeBlock>
    );
  },
  table({ children }) {
    return (
      <div className="md-table">
        <table>{children}</table>
      </div>
    );
  },
  // "[n]" citing a source links to it (./citation-links.tsx).
  ...citationComponents,
};

const remarkPlugins: Options["remarkPlugins"] = [remarkGfm, remarkHtmlAsText];

/** remark-math and rehype-katex, for a reply with math (./markdown-math.tsx), or nothing. */
export type MathPlugins = Pick<Options, "remarkPlugins" | "rehypePlugins">;

function renderMarkdown(text: string, math?: MathPlugins): ReactNode {
  if (!markdownVerdict(text).ok) return <PlainReply>{text}</PlainReply>;
  let content: ReactNode;
  try {
    // Called as a function, not as an element, so that parsing happens inside this try:
    // react-markdown's Markdown is a plain function of its props (no hooks).
    content = ReactMarkdown({
      children: math ? normalizeMathDelimiters(text) : text,
      remarkPlugins: math ? [...(remarkPlugins ?? []), ...(math.remarkPlugins ?? [])] : remarkPlugins,
      rehypePlugins: [rehypeCitations, ...(math?.rehypePlugins ?? [])],
      urlTransform: (url) => safeUrl(url) ?? "",
      components,
    });
  } catch {
    return <PlainReply>{text}</PlainReply>;
  }
  return <div className="markdown">{content}</div>;
}

/** The pipeline behind ./markdown.tsx's Markdown, a chunk of its own in the browser (ADR 051). */
export function RenderedMarkdown({ children, math }: { children: string; math?: MathPlugins }): ReactNode {
  return <PlainOnError text={children}>{renderMarkdown(children, math)}</PlainOnError>;
}
