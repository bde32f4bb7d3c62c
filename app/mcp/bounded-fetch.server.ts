/**
 * The fetch an MCP transport is given: the outbound fetch (the guard's, or the
 * global one) with every answer read through a byte limit, so a server cannot
 * make the app hold megabytes it will never show.
 *
 * The SDK routes a JSON-RPC answer by its id. When the POST that carried a
 * request ends badly — its event stream grows past the limit, or the server
 * drops the connection before answering — the SDK would only report a
 * stream error and leave the call waiting for its deadline. Here the stream
 * instead ends with a JSON-RPC error for that id, which the SDK hands to the
 * waiting call at once; `data.failure` tells the session which kind of failure
 * to report (docs/decisions/089). A JSON answer that grows past the limit
 * fails its read, which the SDK already hands to the call.
 */

/** The `data` of an error this module writes, so the session can tell it from a server's own. */
export interface InjectedFailure {
  failure: "transport" | "protocol";
  reason: "dropped" | "too-large";
  injectedBy: "nuvara";
}

export class ResponseTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The server's answer was larger than ${limit} bytes`);
    this.name = "ResponseTooLargeError";
  }
}

export function isInjectedFailure(data: unknown): data is InjectedFailure {
  return (
    typeof data === "object" &&
    data !== null &&
    (data as InjectedFailure).injectedBy === "nuvara" &&
    ((data as InjectedFailure).failure === "transport" || (data as InjectedFailure).failure === "protocol")
  );
}

/** The ids of the JSON-RPC requests in a POST body (a message or a batch); empty for notifications and GETs. */
export function requestIds(body: unknown): (string | number)[] {
  if (typeof body !== "string") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  return messages.flatMap((message) => {
    const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
    return typeof method === "string" && (typeof id === "string" || typeof id === "number") ? [id] : [];
  });
}

function errorEvent(id: string | number, message: string, reason: InjectedFailure["reason"]): string {
  const data: InjectedFailure = {
    failure: reason === "dropped" ? "transport" : "protocol",
    reason,
    injectedBy: "nuvara",
  };
  return `\n\nevent: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32000, message, data } })}\n\n`;
}

/**
 * Counts the bytes of the event being received (since the last blank line):
 * one event is one message, and a long-lived stream of small notifications
 * must not add up to the limit.
 */
function eventSizeCounter() {
  let since = 0;
  let previous = 0;
  return (chunk: Uint8Array): number => {
    for (const byte of chunk) {
      if (byte === 10 && previous === 10) since = 0;
      else since++;
      // A CR before LF does not break a blank line ("\r\n\r\n").
      if (byte !== 13) previous = byte;
    }
    return since;
  };
}

const encoder = new TextEncoder();

/** An event stream whose events are bounded, ending with an error answer for `ids` when it goes wrong. */
function boundedEventStream(body: ReadableStream<Uint8Array>, ids: (string | number)[], maxBytes: number) {
  const reader = body.getReader();
  const eventSize = eventSizeCounter();
  // A stream that named its events can be resumed by the SDK (Last-Event-ID): a drop is then left to it.
  let resumable = false;
  const endWith = (
    controller: ReadableStreamDefaultController<Uint8Array>,
    message: string,
    reason: InjectedFailure["reason"],
  ) => {
    for (const id of ids) controller.enqueue(encoder.encode(errorEvent(id, message, reason)));
    controller.close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        if (resumable || ids.length === 0) controller.error(error);
        else endWith(controller, "The server dropped the connection before answering", "dropped");
        return;
      }
      if (next.done) {
        controller.close();
        return;
      }
      if (!resumable && /(^|\n)id:/.test(new TextDecoder().decode(next.value))) resumable = true;
      if (eventSize(next.value) > maxBytes) {
        void reader.cancel().catch(() => undefined);
        if (ids.length === 0) controller.error(new ResponseTooLargeError(maxBytes));
        else endWith(controller, `The server's answer was larger than ${maxBytes} bytes and was dropped`, "too-large");
        return;
      }
      controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** A JSON (or any other) body cut off with an error past `maxBytes`. */
function boundedBody(body: ReadableStream<Uint8Array>, maxBytes: number) {
  let total = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength;
        if (total > maxBytes) controller.error(new ResponseTooLargeError(maxBytes));
        else controller.enqueue(chunk);
      },
    }),
  );
}

export function boundedFetch(base: typeof fetch, maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body) return response;
    const eventStream = (response.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");
    const body = eventStream
      ? boundedEventStream(response.body, requestIds(init?.body), maxBytes)
      : boundedBody(response.body, maxBytes);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
