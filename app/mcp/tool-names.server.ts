import { createHash } from "node:crypto";

/**
 * The function names the model sees for MCP tools, and the way back.
 *
 * Providers accept `^[a-zA-Z0-9_-]{1,64}$`; an MCP tool name may hold dots,
 * slashes, spaces or be long, and two servers may both have `search`. A name
 * is `<server slug>__<tool>`. It stays readable when the tool's name already
 * fits; otherwise it is cleaned, shortened and given a hash of the original
 * pair, so it never depends on the order tools were listed in: a conversation
 * stored with a tool call keeps meaning the same tool in the next request.
 */
export const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_LENGTH = 64;
const SEPARATOR = "__";

export interface McpToolRef {
  server: string;
  tool: string;
}

function clean(value: string): string {
  return value.replace(/[^a-zA-Z0-9_-]/g, "_");
}

function shortHash(...parts: string[]): string {
  return createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 8);
}

/** The name for one (server, tool) pair, before any clash with another is settled. */
export function functionNameFor(serverSlug: string, toolName: string): string {
  const plain = `${serverSlug}${SEPARATOR}${toolName}`;
  if (FUNCTION_NAME.test(plain)) return plain;
  const suffix = `_${shortHash(serverSlug, toolName)}`;
  const cleaned = `${clean(serverSlug) || "server"}${SEPARATOR}${clean(toolName)}`;
  return `${cleaned.slice(0, MAX_LENGTH - suffix.length)}${suffix}`;
}

/**
 * The names of one request's tools: unique among themselves and apart from
 * `reserved` (the built-in tools' ids), each leading back to its server and tool.
 */
export class McpToolNames {
  private readonly taken: Set<string>;
  private readonly refs = new Map<string, McpToolRef>();

  constructor(reserved: Iterable<string> = []) {
    this.taken = new Set(reserved);
  }

  /** The function name for `tool` of `server`; the same pair asked twice gets the same name. */
  add(server: string, tool: string): string {
    for (const [name, ref] of this.refs) if (ref.server === server && ref.tool === tool) return name;
    let name = functionNameFor(server, tool);
    // Only a name that another pair's hashed name happens to equal gets here: a counter settles it.
    for (let attempt = 2; this.taken.has(name); attempt++) {
      const suffix = `_${attempt}`;
      name = `${functionNameFor(server, tool).slice(0, MAX_LENGTH - suffix.length)}${suffix}`;
    }
    this.taken.add(name);
    this.refs.set(name, { server, tool });
    return name;
  }

  lookup(functionName: string): McpToolRef | undefined {
    return this.refs.get(functionName);
  }

  entries(): [string, McpToolRef][] {
    return [...this.refs];
  }
}
