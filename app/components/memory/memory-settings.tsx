import { Link, useFetcher } from "@remix-run/react";
import { useEffect, useId, useRef, useState } from "react";
import { FormOutcome } from "~/components/form-outcome";
import { LocalTime } from "~/components/time/local-time";
import type { MemoryPage, MemoryResult } from "~/chat/memory-page.server";
import type { MemoryView } from "~/data/memories.server";

type Answer = { memory?: MemoryResult; error?: string };

/**
 * The memory page's body (docs/decisions/103): the switch, a form to add a
 * memory, and every memory with Edit and Delete. Each form posts through its
 * own fetcher, so a refused text stays in its field with the reason under it.
 */
export function MemorySettings({ page }: { page: MemoryPage }) {
  const { memories, enabled, allowed, switchedOff, maxMemories, maxLength } = page;
  return (
    <>
      <p>
        The assistant remembers facts about you across chats: it saves one when you ask it to or when you tell it a
        lasting preference, and it is given the memories that fit a new message best. A reply says when it saved or used
        memories. Temporary chats neither read nor save them.
      </p>
      {allowed ? (
        <MemorySwitch enabled={enabled} />
      ) : switchedOff ? (
        <p className="notice" role="note">
          Memory is switched off for your plan by an administrator: the assistant neither reads nor saves memories. Your
          memories are kept, and you can still read and delete them.
        </p>
      ) : (
        <p className="notice" role="note">
          Memory is not part of your plan: the assistant neither reads nor saves memories. You can still read and delete
          those saved before.
        </p>
      )}
      {allowed ? <AddMemory maxLength={maxLength} /> : null}
      <h2 id="memory-list-title">
        Your memories{" "}
        {memories ? (
          <span className="memory-count">
            ({memories.length} of {maxMemories})
          </span>
        ) : null}
      </h2>
      {memories === null ? (
        <p className="form-error">Your memories cannot be loaded right now. Please try again shortly.</p>
      ) : memories.length === 0 ? (
        <p className="empty">No memories yet.</p>
      ) : (
        <ul className="memory-list" aria-labelledby="memory-list-title">
          {memories.map((memory) => (
            <MemoryItem key={memory.id} memory={memory} maxLength={maxLength} />
          ))}
        </ul>
      )}
    </>
  );
}

function MemorySwitch({ enabled }: { enabled: boolean }) {
  const fetcher = useFetcher<Answer>();
  const busy = fetcher.state !== "idle";
  const answer = fetcher.data?.memory;
  return (
    <fetcher.Form method="post" className="memory-switch" preventScrollReset>
      <input type="hidden" name="intent" value="switch" />
      <input type="hidden" name="enabled" value={enabled ? "off" : "on"} />
      <p className="memory-state">
        Memory is <strong>{enabled ? "on" : "off"}</strong>
        {enabled ? "." : ": the assistant neither reads nor saves memories, and the ones below are kept."}
      </p>
      <button type="submit" className="button" disabled={busy}>
        {enabled ? "Turn memory off" : "Turn memory on"}
      </button>
      <FormOutcome
        notice={answer?.ok ? answer.notice : undefined}
        error={answer && !answer.ok ? answer.error : undefined}
      />
    </fetcher.Form>
  );
}

function AddMemory({ maxLength }: { maxLength: number }) {
  const fetcher = useFetcher<Answer>();
  const form = useRef<HTMLFormElement>(null);
  const hint = useId();
  const answer = fetcher.data?.memory;
  const saved = fetcher.state === "idle" && answer?.ok ? answer.id : undefined;
  // Saved: the field is empty for the next one. Refused: what was typed stays.
  useEffect(() => {
    if (saved) form.current?.reset();
  }, [saved, fetcher.data]);
  return (
    <fetcher.Form ref={form} method="post" className="memory-add" preventScrollReset>
      <input type="hidden" name="intent" value="add" />
      <label>
        Add a memory
        <textarea name="text" rows={2} aria-describedby={hint} aria-invalid={answer && !answer.ok ? true : undefined} />
      </label>
      <p id={hint} className="fine-print">
        One fact about you, up to {maxLength} characters, e.g. “I prefer metric units.”
      </p>
      <button type="submit" className="button primary" disabled={fetcher.state !== "idle"}>
        Save memory
      </button>
      <FormOutcome
        notice={answer?.ok ? answer.notice : undefined}
        error={answer && !answer.ok ? answer.error : undefined}
      />
    </fetcher.Form>
  );
}

function MemoryItem({ memory, maxLength }: { memory: MemoryView; maxLength: number }) {
  const [editing, setEditing] = useState(false);
  const edit = useFetcher<Answer>();
  const remove = useFetcher<Answer>();
  const editAnswer = edit.data?.memory;
  const removeAnswer = remove.data?.memory;
  const editButton = useRef<HTMLButtonElement>(null);
  const field = useRef<HTMLTextAreaElement>(null);
  const labelId = useId();
  const updated = edit.state === "idle" && editAnswer?.ok;
  useEffect(() => {
    if (updated) {
      setEditing(false);
      editButton.current?.focus();
    }
  }, [updated, edit.data]);
  useEffect(() => {
    if (editing) field.current?.focus();
  }, [editing]);
  return (
    <li className="memory">
      {editing ? (
        <edit.Form method="post" className="memory-edit" preventScrollReset>
          <input type="hidden" name="intent" value="edit" />
          <input type="hidden" name="id" value={memory.id} />
          <label id={labelId}>
            Edit memory
            <textarea
              ref={field}
              name="text"
              rows={2}
              defaultValue={memory.text}
              aria-invalid={editAnswer && !editAnswer.ok ? true : undefined}
            />
          </label>
          <p className="fine-print">Up to {maxLength} characters.</p>
          <div className="actions">
            <button type="submit" className="button primary small" disabled={edit.state !== "idle"}>
              Save
            </button>
            <button type="button" className="button small" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
          <FormOutcome error={editAnswer && !editAnswer.ok ? editAnswer.error : undefined} />
        </edit.Form>
      ) : (
        <>
          <p className="memory-text">{memory.text}</p>
          <p className="fine-print">
            <MemoryOrigin memory={memory} /> · <LocalTime value={memory.updatedAt} style="date" />
          </p>
          <div className="actions">
            <button ref={editButton} type="button" className="button small" onClick={() => setEditing(true)}>
              Edit<span className="visually-hidden"> memory “{memory.text}”</span>
            </button>
            <remove.Form method="post" preventScrollReset>
              <input type="hidden" name="intent" value="delete" />
              <input type="hidden" name="id" value={memory.id} />
              <button type="submit" className="button small danger" disabled={remove.state !== "idle"}>
                Delete<span className="visually-hidden"> memory “{memory.text}”</span>
              </button>
            </remove.Form>
          </div>
          <FormOutcome error={removeAnswer && !removeAnswer.ok ? removeAnswer.error : undefined} />
        </>
      )}
    </li>
  );
}

function MemoryOrigin({ memory }: { memory: MemoryView }) {
  if (memory.source === "user") return <>Added by you</>;
  if (!memory.conversation) return <>Saved by the assistant</>;
  return (
    <>
      Saved by the assistant in{" "}
      <Link to={`/nuvara/${memory.conversation.id}`}>{memory.conversation.title ?? "a chat"}</Link>
    </>
  );
}
