import type { WebSource } from "~/conversation/attachment-types";
import type { FoundPage } from "./providers.server";

/**
 * The pages one reply's tools found, numbered for citation
 * (docs/decisions/088). One list per reply: the reply's run reads it to send
 * the Sources as they grow, and the tools add to it. Numbers go on after the
 * reply's document passages; a page found twice keeps its first number.
 */
export class WebSourceList {
  private first = 1;
  private readonly list: WebSource[] = [];
  /** Goes up on every change, so a reader can tell whether there is something new to send. */
  version = 0;

  /** Before any tool runs: the reply's document passages take numbers 1..count. */
  startAfter(count: number) {
    this.first = count + 1;
  }

  /** The pages, numbered (a page already listed keeps its number). */
  add(pages: readonly FoundPage[]): WebSource[] {
    const numbered = pages.map((page) => {
      const listed = this.list.find((source) => source.url === page.url);
      if (listed) return listed;
      const source: WebSource = { number: this.first + this.list.length, ...page };
      this.list.push(source);
      this.version += 1;
      return source;
    });
    return numbered;
  }

  byNumber(number: number): WebSource | undefined {
    return this.list.find((source) => source.number === number);
  }

  get sources(): readonly WebSource[] {
    return this.list;
  }
}
