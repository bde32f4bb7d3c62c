/**
 * The scripted model server's attachment echo and embeddings endpoint, over
 * real HTTP: raw fetch for the wire format, and the AI SDK's
 * OpenAI-compatible provider to check it sends what the server expects.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { embedMany, generateText } from "ai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  attachmentsIn,
  embedText,
  startModelServer,
  type ChatContentPart,
  type ModelServer,
} from "../../support/model-server";

let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer();
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.reset();
});

const PNG_BYTES = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e2a1f3f00000000049454e44ae426082",
  "hex",
);
const PNG_DATA_URL = `data:image/png;base64,${PNG_BYTES.toString("base64")}`;

/** POSTs a streamed chat completion and returns the concatenated reply text. */
async function streamedReply(content: string | ChatContentPart[]): Promise<string> {
  const response = await fetch(`${server.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "test-model", stream: true, messages: [{ role: "user", content }] }),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  let text = "";
  for (const line of (await response.text()).split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const event = JSON.parse(line.slice("data: ".length)) as { choices: Array<{ delta: { content?: string | null } }> };
    text += event.choices[0]?.delta.content ?? "";
  }
  return text;
}

async function postEmbeddings(body: Record<string, unknown>) {
  const response = await fetch(`${server.url}/embeddings`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

interface EmbeddingsAnswer {
  object: string;
  data: Array<{ object: string; index: number; embedding: number[] }>;
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

function cosine(a: number[], b: number[]): number {
  return a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0);
}

function norm(vector: number[]): number {
  return Math.sqrt(cosine(vector, vector));
}

describe("echo of user messages with attachments", () => {
  it("describes an image part by media type and decoded size, and echoes the text parts", async () => {
    const text = await streamedReply([
      { type: "text", text: "What is in this picture?" },
      { type: "image_url", image_url: { url: PNG_DATA_URL } },
    ]);
    expect(text).toBe(`You said: What is in this picture? [image image/png, ${PNG_BYTES.length} bytes]`);

    expect(server.receivedImages).toEqual([
      {
        kind: "image",
        mediaType: "image/png",
        bytes: PNG_BYTES.length,
        description: `[image image/png, ${PNG_BYTES.length} bytes]`,
      },
    ]);
  });

  it("describes an image sent by URL, an image-only message, and several images in order", async () => {
    expect(await streamedReply([{ type: "image_url", image_url: { url: "https://example.com/cat.jpg" } }])).toBe(
      "You said: [image https://example.com/cat.jpg]",
    );
    const jpeg = `data:image/jpeg;base64,${Buffer.alloc(1234, 7).toString("base64")}`;
    expect(
      await streamedReply([
        { type: "image_url", image_url: { url: PNG_DATA_URL } },
        { type: "text", text: "and" },
        { type: "image_url", image_url: { url: jpeg } },
      ]),
    ).toBe(`You said: [image image/png, ${PNG_BYTES.length} bytes] and [image image/jpeg, 1234 bytes]`);
    expect(server.receivedImages.map((image) => image.description)).toEqual([
      "[image https://example.com/cat.jpg]",
      `[image image/png, ${PNG_BYTES.length} bytes]`,
      "[image image/jpeg, 1234 bytes]",
    ]);
  });

  it("describes a PDF file part as the provider sends it", async () => {
    const pdf = Buffer.from("%PDF-1.4 tiny");
    const text = await streamedReply([
      { type: "text", text: "Summarise" },
      {
        type: "file",
        file: { filename: "notes.pdf", file_data: `data:application/pdf;base64,${pdf.toString("base64")}` },
      },
    ]);
    expect(text).toBe(`You said: Summarise [file application/pdf, ${pdf.length} bytes]`);
    expect(server.receivedAttachments).toEqual([
      expect.objectContaining({ kind: "file", mediaType: "application/pdf", bytes: pdf.length, filename: "notes.pdf" }),
    ]);
    expect(server.receivedImages).toEqual([]);
  });

  it("keeps the echo of plain and text-only messages unchanged", async () => {
    expect(await streamedReply("hello there  model")).toBe("You said: hello there  model");
    expect(
      await streamedReply([
        { type: "text", text: "one" },
        { type: "text", text: "two three" },
      ]),
    ).toBe("You said: one two three");
    expect(await streamedReply("   ")).toBe("You said: (nothing)");
    expect(server.receivedAttachments).toEqual([]);
  });

  it("receives images from the AI SDK's OpenAI-compatible provider as image_url data URLs", async () => {
    const provider = createOpenAICompatible({ name: "test", baseURL: server.url });
    const result = await generateText({
      model: provider.chatModel("test-model"),
      maxRetries: 0,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Describe" },
            { type: "file", data: PNG_BYTES, mediaType: "image/png" },
          ],
        },
      ],
    });
    expect(result.text).toBe(`You said: Describe [image image/png, ${PNG_BYTES.length} bytes]`);
    const body = server.requests.find((request) => request.path === "/v1/chat/completions")?.body;
    expect(body?.messages?.[0]?.content).toEqual([
      { type: "text", text: "Describe" },
      { type: "image_url", image_url: { url: PNG_DATA_URL } },
    ]);
    expect(attachmentsIn(body).map((attachment) => attachment.description)).toEqual([
      `[image image/png, ${PNG_BYTES.length} bytes]`,
    ]);
  });
});

describe("POST /v1/embeddings", () => {
  const inputs = ["the cat sat", "a cat sat down", "quantum chromodynamics"];

  it("answers deterministic unit vectors in the OpenAI shape", async () => {
    const first = await postEmbeddings({ model: "embed-model", input: inputs, encoding_format: "float" });
    expect(first.status).toBe(200);
    const answer = first.body as unknown as EmbeddingsAnswer;
    expect(answer).toMatchObject({
      object: "list",
      model: "embed-model",
      usage: { prompt_tokens: 9, total_tokens: 9 },
    });
    expect(answer.data.map(({ object, index }) => ({ object, index }))).toEqual([
      { object: "embedding", index: 0 },
      { object: "embedding", index: 1 },
      { object: "embedding", index: 2 },
    ]);
    const [cat, cat2, physics] = answer.data.map((item) => item.embedding) as [number[], number[], number[]];
    for (const vector of [cat, cat2, physics]) {
      expect(vector).toHaveLength(64);
      expect(norm(vector)).toBeCloseTo(1, 10);
    }
    expect(cosine(cat, cat2)).toBeGreaterThan(cosine(cat, physics));
    expect(cosine(cat, cat2)).toBeGreaterThan(cosine(cat2, physics));
    expect(cosine(cat, cat2)).toBeGreaterThan(0.4);

    // Same input, same vector: across requests, as a single string, and as embedText computes it.
    const again = (await postEmbeddings({ model: "embed-model", input: inputs })).body as unknown as EmbeddingsAnswer;
    expect(again.data).toEqual(answer.data);
    const single = (await postEmbeddings({ model: "embed-model", input: "the cat sat" }))
      .body as unknown as EmbeddingsAnswer;
    expect(single.data).toEqual([{ object: "embedding", index: 0, embedding: cat }]);
    expect(embedText("The CAT, sat!")).toEqual(cat);

    expect(server.embeddingsRequests).toHaveLength(3);
    expect(server.embeddingsRequests[0]?.body?.input).toEqual(inputs);
  });

  it("gives an empty text the zero vector and honours the requested dimensions", async () => {
    const { body } = await postEmbeddings({ input: ["", "  ...  "], dimensions: 8 });
    const answer = body as unknown as EmbeddingsAnswer;
    expect(answer.data.map((item) => item.embedding)).toEqual([new Array(8).fill(0), new Array(8).fill(0)]);
    expect(answer.usage).toEqual({ prompt_tokens: 1, total_tokens: 1 });
  });

  it("uses the dimensions set on the server and answers base64 when asked", async () => {
    const small = await startModelServer({ embeddingDimensions: 16 });
    try {
      const response = await fetch(`${small.url}/embeddings`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: "the cat sat" }),
      });
      const answer = (await response.json()) as EmbeddingsAnswer;
      expect(answer.data[0]?.embedding).toEqual(embedText("the cat sat", 16));

      const encoded = await fetch(`${small.url}/embeddings`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: "the cat sat", encoding_format: "base64" }),
      });
      const base64 = ((await encoded.json()) as { data: Array<{ embedding: string }> }).data[0]?.embedding ?? "";
      const floats = Array.from(new Float32Array(new Uint8Array(Buffer.from(base64, "base64")).buffer));
      expect(floats).toHaveLength(16);
      floats.forEach((value, index) => expect(value).toBeCloseTo(embedText("the cat sat", 16)[index] ?? NaN, 6));
    } finally {
      await small.close();
    }
  });

  it("refuses bad input with 400", async () => {
    expect((await postEmbeddings({ input: [] })).status).toBe(400);
    expect((await postEmbeddings({ input: [true, {}] })).status).toBe(400);
    expect((await postEmbeddings({ input: ["text", 3] })).status).toBe(400);
    expect((await postEmbeddings({})).status).toBe(400);
    expect((await postEmbeddings({ input: "x", dimensions: 0 })).status).toBe(400);
  });

  it("fails queued embeddings requests in order without touching the chat queue", async () => {
    server.enqueue({ type: "text", text: "chat reply" });
    server.enqueueEmbeddings({ type: "http-error", status: 503, message: "embedder down" });
    expect(server.queuedEmbeddingsReplies).toBe(1);

    const failed = await postEmbeddings({ input: "hello" });
    expect(failed).toEqual({
      status: 503,
      body: { error: { message: "embedder down", type: "scripted_error", code: 503 } },
    });
    expect((await postEmbeddings({ input: "hello" })).status).toBe(200);
    expect(server.queuedReplies).toBe(1);
    expect(server.embeddingsRequests).toHaveLength(2);

    server.setFailureMode({ type: "http-error", status: 500 });
    expect((await postEmbeddings({ input: "hello" })).status).toBe(500);
  });

  it("serves the AI SDK's OpenAI-compatible embedding model at {baseURL}/embeddings", async () => {
    const provider = createOpenAICompatible({ name: "test", baseURL: server.url });
    const { embeddings, usage } = await embedMany({
      model: provider.embeddingModel("embed-model"),
      values: inputs,
      maxRetries: 0,
    });
    expect(embeddings).toEqual(inputs.map((text) => embedText(text)));
    expect(usage.tokens).toBe(9);
    expect(server.embeddingsRequests.map((request) => request.body)).toEqual([
      { model: "embed-model", input: inputs, encoding_format: "float" },
    ]);
  });
});
