/**
 * The built-in demo model for local mode when no real model is configured.
 *
 * It is not an AI and says so: whatever it is asked, it streams the same short
 * explanation of how to connect a real model, word by word like a real model
 * would, so the chat UI can be tried end to end.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";

export const DEMO_MODEL_ID = "nuvara-demo";
export const DEMO_MODEL_LABEL = "Demo (not an AI)";

export const DEMO_REPLY = `Hi! I'm the Nuvara² demo model, not an AI: I can't read or answer your message, I only show how the chat works until a real model is connected.

To connect one, set these environment variables and restart Nuvara²:

- \`LLM_BASE_URL\`: an OpenAI-compatible endpoint, e.g. \`http://127.0.0.1:11434/v1\` for Ollama or \`https://api.openai.com/v1\` for OpenAI
- \`LLM_API_KEY\`: the API key for that endpoint (Ollama needs none)
- \`LLM_MODELS\`: comma-separated model ids; the first one is the default

Or run Ollama locally on 127.0.0.1:11434 and restart Nuvara²; its models are picked up automatically.`;

const FINISHED: LanguageModelV4FinishReason = { unified: "stop", raw: "stop" };

/** The demo counts no tokens; unknown is more honest than a made-up number. */
const NO_USAGE: LanguageModelV4Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

export interface DemoModelOptions {
  /** Pause before each streamed word; small enough to feel like typing. */
  wordDelayMs?: number;
}

export function createDemoModel({ wordDelayMs = 25 }: DemoModelOptions = {}): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "nuvara",
    modelId: DEMO_MODEL_ID,
    supportedUrls: {},

    async doGenerate(): Promise<LanguageModelV4GenerateResult> {
      return {
        content: [{ type: "text", text: DEMO_REPLY }],
        finishReason: FINISHED,
        usage: NO_USAGE,
        response: { modelId: DEMO_MODEL_ID, timestamp: new Date() },
        warnings: [],
      };
    },

    async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
      return { stream: streamWords(splitIntoWords(DEMO_REPLY), wordDelayMs, options.abortSignal) };
    },
  };
}

/** Splits before each word, keeping the spacing, so the pieces join back to the exact text. */
function splitIntoWords(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/);
}

function streamWords(words: string[], delayMs: number, abortSignal: AbortSignal | undefined) {
  const textId = "demo-text";
  let next = 0;
  return new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      controller.enqueue({ type: "stream-start", warnings: [] });
      controller.enqueue({ type: "response-metadata", modelId: DEMO_MODEL_ID, timestamp: new Date() });
      controller.enqueue({ type: "text-start", id: textId });
    },
    // Pull-based, so a consumer that stops reading also stops the timer chain.
    async pull(controller) {
      const word = words[next];
      next += 1;
      if (word === undefined) {
        controller.enqueue({ type: "text-end", id: textId });
        controller.enqueue({ type: "finish", finishReason: FINISHED, usage: NO_USAGE });
        controller.close();
        return;
      }
      await delay(delayMs, abortSignal);
      if (abortSignal?.aborted) {
        controller.error(abortSignal.reason);
        return;
      }
      controller.enqueue({ type: "text-delta", id: textId, delta: word });
    },
  });
}

function delay(ms: number, abortSignal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || abortSignal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    abortSignal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      abortSignal?.removeEventListener("abort", done);
      resolve();
    }
  });
}
