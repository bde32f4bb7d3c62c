import { useState, type DragEvent } from "react";
import { focusComposer } from "./composer";

/** Files dropped anywhere on the chat are attached to the next message: `handlers` go on the chat's section. */
export function useFileDrop(attach: (files: File[]) => void) {
  const [dragging, setDragging] = useState(false);
  const handlers = {
    onDragOver(event: DragEvent<HTMLElement>) {
      if (!event.dataTransfer.types.includes("Files")) return;
      event.preventDefault();
      setDragging(true);
    },
    onDragLeave(event: DragEvent<HTMLElement>) {
      if (!event.currentTarget.contains(event.relatedTarget as HTMLElement | null)) setDragging(false);
    },
    onDrop(event: DragEvent<HTMLElement>) {
      if (event.dataTransfer.files.length === 0) return;
      event.preventDefault();
      setDragging(false);
      attach(Array.from(event.dataTransfer.files));
      focusComposer();
    },
  };
  return { dragging, handlers };
}
