// The server renders replies with the pipeline imported directly; in the
// browser this module is empty (a `.server` module), so ./markdown.tsx loads
// the pipeline as a chunk of its own instead (ADR 051).
export { RenderedMarkdown } from "./markdown-render";
