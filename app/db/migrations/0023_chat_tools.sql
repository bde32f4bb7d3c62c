-- A chat's own choice of tools (the composer's tools menu): the ids switched off for that chat only; null: none (app/chat/chat-tools.server.ts, docs/features.md).
ALTER TABLE "conversations" ADD COLUMN "tools_off" text[];
