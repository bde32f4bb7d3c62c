import { Component, type ReactNode } from "react";
import ReactMarkdown, { type Components, type Options } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";
import { CopyButton } from "./copy-button";
import { markdownVerdict } from "./markdown-budget";

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
 * - Rendering is bounded (M-6): a reply the parser would take long over, or
 *   nest deep enough to overflow the stack, is shown as plain text
 *   (./markdown-budget.ts), and a reply that fails to render anyway falls
 *   back to plain text too, so one message can never fail a page.
 */

const ALLOWED_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);

export function safeUrl(url: string | undefined | null): string | null {
  if (!url) return null;
  try {
    // No base: a relative URL does not parse, and is refused with the rest.
    const parsed = new URL(url.trim());
    return ALLOWED_PROTOCOLS.has(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}

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
      node.children = node.children?.map((child) => {
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
    const language = codeLanguage(hast);
    return (
      <div className="code-block">
        <div className="code-block-bar">
          <span>{language ?? "code"}</span>
          <CopyButton text={hastText(hast).replace(/\n$/, "")} label="Copy code" />
        </div>
        <pre>{children}</pre>
      </div>
    );
  },
  table({ children }) {
    return (
      <div className="md-table">
        <table>{children}</table>
      </div>
    );
  },
};

const remarkPlugins: Options["remarkPlugins"] = [remarkGfm, remarkHtmlAsText];
// Only code blocks that name their language are highlighted (guessing is slow and often wrong).
const rehypePlugins: Options["rehypePlugins"] = [[rehypeHighlight, { detect: false, plainText: ["text", "txt", "plain"] }]];

/** The reply as preformatted text: readable, escaped like all React text, and linear to render. */
export function PlainReply({ children }: { children: string }): ReactNode {
  return (
    <div className="markdown markdown-plain">
      <pre>{children}</pre>
    </div>
  );
}

/**
 * Catches what a render throws below it in the browser (a reply streamed in,
 * a hydration), so one message falls back to plain text and the rest of the
 * page stays. Server rendering ignores error boundaries: there the try/catch
 * in Markdown does this job.
 */
class PlainOnError extends Component<{ text: string; children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidUpdate(previous: { text: string }) {
    // A streamed reply grows: its new text may render again.
    if (this.state.failed && previous.text !== this.props.text) this.setState({ failed: false });
  }

  render() {
    return this.state.failed ? <PlainReply>{this.props.text}</PlainReply> : this.props.children;
  }
}

function renderMarkdown(text: string): ReactNode {
  if (!markdownVerdict(text).ok) return <PlainReply>{text}</PlainReply>;
  let content: ReactNode;
  try {
    // Called as a function, not as an element, so that parsing happens inside this try:
    // react-markdown's Markdown is a plain function of its props (no hooks).
    content = ReactMarkdown({
      children: text,
      remarkPlugins,
      rehypePlugins,
      urlTransform: (url) => safeUrl(url) ?? "",
      components,
    });
  } catch {
    return <PlainReply>{text}</PlainReply>;
  }
  return <div className="markdown">{content}</div>;
}

export function Markdown({ children }: { children: string }): ReactNode {
  return <PlainOnError text={children}>{renderMarkdown(children)}</PlainOnError>;
}
