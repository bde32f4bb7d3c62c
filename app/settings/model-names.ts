import { parseNameList } from "~/settings/name-list";

/** LLM_MODEL_NAMES: readable names for model ids in the model menu (the id is still what is sent and stored). */

const MAX_NAME = 60;

/** `gpt-4o-mini=GPT-4o mini,llama3.2:3b=Llama 3.2 3B` → id → name. */
export function parseModelNames(value: string | undefined): Map<string, string> {
  return parseNameList(value, { form: "model-id=Name (e.g. gpt-4o-mini=GPT-4o mini)", maxName: MAX_NAME });
}
