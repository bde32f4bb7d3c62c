import { strToU8, zipSync } from "fflate";

/**
 * Exports to import (docs/decisions/104), built to the published shapes of
 * ChatGPT's and Claude.ai's conversations.json, with branches: an edited
 * question and a regenerated reply.
 */

const T0 = Date.UTC(2024, 2, 1, 9, 0, 0) / 1000;

interface GptNode {
  id: string;
  parent: string | null;
  children: string[];
  message: null | {
    id: string;
    author: { role: string };
    create_time: number | null;
    content: { content_type: string; parts?: unknown[]; text?: string };
    metadata: Record<string, unknown>;
  };
}

function gptMessage(id: string, role: string, at: number, parts: unknown[], metadata: Record<string, unknown> = {}) {
  return { id, author: { role }, create_time: at, content: { content_type: "text", parts }, metadata };
}

/** Builds a mapping from [id, parent, message] triples, filling in the children. */
function mapping(nodes: Array<[string, string | null, GptNode["message"]]>): Record<string, GptNode> {
  const map: Record<string, GptNode> = {};
  for (const [id, parent, message] of nodes) map[id] = { id, parent, children: [], message };
  for (const [id, parent] of nodes) if (parent) map[parent]?.children.push(id);
  return map;
}

/**
 * "Trip to Lisbon": a question with a file, a reply; the follow-up asked,
 * answered, then edited (two versions); the edited one answered after a tool
 * message, and regenerated (two versions); the regenerated one is shown.
 */
export function chatgptBranched(id = "gpt-lisbon-0001", title = "Trip to Lisbon", start = T0) {
  return {
    id,
    title,
    create_time: start,
    update_time: start + 600,
    current_node: "a2c",
    mapping: mapping([
      ["root", null, null],
      [
        "sys",
        "root",
        { ...gptMessage("sys", "system", start, [""]), metadata: { is_visually_hidden_from_conversation: true } },
      ],
      [
        "u1",
        "sys",
        gptMessage("u1", "user", start + 10, ["Plan three days in Lisbon."], {
          attachments: [{ id: "file-1", name: "itinerary.pdf", size: 1234, mime_type: "application/pdf" }],
        }),
      ],
      ["a1", "u1", gptMessage("a1", "assistant", start + 20, ["Day 1: Alfama. Day 2: Belém. Day 3: Sintra."])],
      ["u2a", "a1", gptMessage("u2a", "user", start + 30, ["Make it cheaper."])],
      ["a2a", "u2a", gptMessage("a2a", "assistant", start + 40, ["Cheaper: walk and take tram 28."])],
      ["u2b", "a1", gptMessage("u2b", "user", start + 50, ["Make it vegetarian."])],
      [
        "tool1",
        "u2b",
        {
          ...gptMessage("tool1", "tool", start + 55, ["search results"]),
          content: { content_type: "text", parts: ["search results"] },
        },
      ],
      ["a2b", "tool1", gptMessage("a2b", "assistant", start + 60, ["Vegetarian: try Ao 26."])],
      ["a2c", "tool1", gptMessage("a2c", "assistant", start + 70, ["Vegetarian, take two: Jardim dos Sentidos."])],
    ]),
  };
}

/** A plain two-message ChatGPT conversation. */
export function chatgptSimple(id: string, title: string, start = T0, words = "Hello there") {
  return {
    id,
    title,
    create_time: start,
    update_time: start + 60,
    current_node: `${id}-a`,
    mapping: mapping([
      [`${id}-root`, null, null],
      [`${id}-u`, `${id}-root`, gptMessage(`${id}-u`, "user", start + 1, [`${words}: question`])],
      [`${id}-a`, `${id}-u`, gptMessage(`${id}-a`, "assistant", start + 2, [`${words}: answer`])],
    ]),
  };
}

/** A conversation whose parents loop (u → a → u). */
export function chatgptLooping(id = "gpt-loop") {
  const conversation = chatgptSimple(id, "Looping");
  conversation.mapping[`${id}-u`].parent = `${id}-a`;
  return conversation;
}

/**
 * Claude.ai: a question with an attachment (extracted text) and a file, the
 * reply, then the follow-up retried: two replies to it (the later shown).
 */
export function claudeBranched(uuid = "claude-0001", name = "Sourdough starter") {
  const at = (seconds: number) => new Date((T0 + seconds) * 1000).toISOString();
  const root = "00000000-0000-4000-8000-000000000000";
  return {
    uuid,
    name,
    created_at: at(0),
    updated_at: at(500),
    chat_messages: [
      {
        uuid: "c-h1",
        text: "How do I feed a sourdough starter?",
        content: [{ type: "text", text: "How do I feed a sourdough starter?" }],
        sender: "human",
        created_at: at(10),
        attachments: [
          { file_name: "notes.txt", file_size: 40, file_type: "text/plain", extracted_content: "flour, water" },
        ],
        files: [{ file_name: "photo.jpg" }],
        parent_message_uuid: root,
      },
      {
        uuid: "c-a1",
        text: "Equal weights of flour and water, daily.",
        sender: "assistant",
        created_at: at(20),
        attachments: [],
        files: [],
        parent_message_uuid: "c-h1",
      },
      {
        uuid: "c-h2",
        text: "And if it smells of acetone?",
        sender: "human",
        created_at: at(30),
        attachments: [],
        files: [],
        parent_message_uuid: "c-a1",
      },
      {
        uuid: "c-a2",
        text: "Feed it more often.",
        sender: "assistant",
        created_at: at(40),
        attachments: [],
        files: [],
        parent_message_uuid: "c-h2",
      },
      {
        uuid: "c-a2b",
        text: "It is hungry: feed it twice a day.",
        sender: "assistant",
        created_at: at(50),
        attachments: [],
        files: [],
        parent_message_uuid: "c-h2",
      },
    ],
  };
}

/** A linear Claude conversation (no parent ids, as older exports have). */
export function claudeLinear(uuid: string, name: string) {
  const at = (seconds: number) => new Date((T0 + seconds) * 1000).toISOString();
  return {
    uuid,
    name,
    created_at: at(0),
    updated_at: at(100),
    chat_messages: [
      { uuid: `${uuid}-1`, text: "First question", sender: "human", created_at: at(1), attachments: [], files: [] },
      { uuid: `${uuid}-2`, text: "First answer", sender: "assistant", created_at: at(2), attachments: [], files: [] },
      { uuid: `${uuid}-3`, text: "Second question", sender: "human", created_at: at(3), attachments: [], files: [] },
      { uuid: `${uuid}-4`, text: "Second answer", sender: "assistant", created_at: at(4), attachments: [], files: [] },
    ],
  };
}

export function jsonBytes(data: unknown): Uint8Array {
  return strToU8(JSON.stringify(data));
}

/** A zip as ChatGPT sends it: conversations.json beside other files. */
export function exportZip(conversations: unknown, extra: Record<string, string> = {}): Uint8Array {
  const files: Record<string, Uint8Array> = {
    "conversations.json": jsonBytes(conversations),
    "user.json": strToU8("{}"),
  };
  for (const [name, text] of Object.entries(extra)) files[name] = strToU8(text);
  return zipSync(files);
}

/**
 * A ChatGPT export of `count` conversations, each with `pairs` exchanges and
 * one regenerated last reply, about `words` words a message; dated an hour apart.
 */
export function chatgptExport(count: number, pairs = 4, words = 60): unknown[] {
  const filler = Array.from({ length: words }, (_, i) => `word${i % 50}`).join(" ");
  return Array.from({ length: count }, (_, index) => {
    const id = `bench-${String(index).padStart(6, "0")}`;
    const start = T0 + index * 3600;
    const nodes: Array<[string, string | null, GptNode["message"]]> = [[`${id}-root`, null, null]];
    let parent = `${id}-root`;
    for (let pair = 0; pair < pairs; pair += 1) {
      nodes.push([
        `${id}-u${pair}`,
        parent,
        gptMessage(`${id}-u${pair}`, "user", start + pair * 2, [`Question ${pair} of chat ${index}: ${filler}`]),
      ]);
      nodes.push([
        `${id}-a${pair}`,
        `${id}-u${pair}`,
        gptMessage(`${id}-a${pair}`, "assistant", start + pair * 2 + 1, [`Answer ${pair}: ${filler}`]),
      ]);
      parent = `${id}-a${pair}`;
    }
    const lastUser = `${id}-u${pairs - 1}`;
    nodes.push([
      `${id}-again`,
      lastUser,
      gptMessage(`${id}-again`, "assistant", start + pairs * 2, [`Another answer: ${filler}`]),
    ]);
    return {
      id,
      title: `Chat number ${index}`,
      create_time: start,
      update_time: start + pairs * 2,
      current_node: `${id}-again`,
      mapping: mapping(nodes),
    };
  });
}
