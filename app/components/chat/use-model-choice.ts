import { useFetcher } from "@remix-run/react";
import { useMemo, useState } from "react";
import type { ModelChoice } from "./chat-view-types";
import type { ChatSession } from "./chat-sessions";
import type { PendingFile } from "./attachment-uploads";

/** The conversation's model: the menu's value, what the next request sends, and (once stored) the conversation's setting. */
export function useModelChoice(session: ChatSession, chatId: string, isNew: boolean, models: ModelChoice[]) {
  const modelFetcher = useFetcher();
  const [model, setModel] = useState(session.settings.model);
  const chosenModel = models.find((option) => option.id === model);
  const demoIds = useMemo(() => new Set(models.filter((option) => option.demo).map((option) => option.id)), [models]);

  function chooseModel(id: string) {
    setModel(id);
    session.settings.model = id;
    if (!isNew) modelFetcher.submit({ intent: "model", model: id }, { method: "post", action: `/nuvara/${chatId}` });
  }

  return { model, chosenModel, demoIds, chooseModel };
}

/** Why the files attached can't go with the chosen model (an image it can't see), if so. */
export function imageProblem(
  chosenModel: ModelChoice | undefined,
  models: ModelChoice[],
  files: readonly PendingFile[],
): string | null {
  return chosenModel &&
    !chosenModel.vision &&
    files.some((file) => file.status !== "failed" && file.stored?.kind === "image")
    ? `${chosenModel.label} can't see images. ${
        models.some((option) => option.vision)
          ? "Choose a model that can, or remove the image."
          : "Remove the image to send your message."
      }`
    : null;
}
