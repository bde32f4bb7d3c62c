ALTER TABLE "conversations" ADD COLUMN "current_leaf_id" uuid;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "parent_id" uuid;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_parent_id_messages_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "messages_parent_idx" ON "messages" USING btree ("parent_id");--> statement-breakpoint
-- Backfill (docs/decisions/069): a conversation stored before the tree is one branch, in the order
-- it was shown: each message follows the one before it by seq, and the last one is the leaf shown.
UPDATE "messages" AS m SET "parent_id" = ordered."previous"
FROM (
	SELECT "id", lag("id") OVER (PARTITION BY "conversation_id" ORDER BY "seq") AS "previous" FROM "messages"
) AS ordered
WHERE m."id" = ordered."id" AND ordered."previous" IS NOT NULL;--> statement-breakpoint
UPDATE "conversations" AS c SET "current_leaf_id" = latest."id"
FROM (
	SELECT DISTINCT ON ("conversation_id") "conversation_id", "id" FROM "messages" ORDER BY "conversation_id", "seq" DESC
) AS latest
WHERE latest."conversation_id" = c."id";
