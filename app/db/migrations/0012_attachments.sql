CREATE TABLE "attachment_chunks" (
	"attachment_id" uuid NOT NULL,
	"ordinal" integer NOT NULL,
	"text" text NOT NULL,
	"page_from" integer,
	"page_to" integer,
	"line_from" integer,
	"line_to" integer,
	"embedding" real[],
	CONSTRAINT "attachment_chunks_attachment_id_ordinal_pk" PRIMARY KEY("attachment_id","ordinal")
);
--> statement-breakpoint
CREATE TABLE "attachment_data" (
	"attachment_id" uuid PRIMARY KEY NOT NULL,
	"bytes" "bytea" NOT NULL,
	"text" text
);
--> statement-breakpoint
CREATE TABLE "attachments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"message_id" uuid,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"media_type" text NOT NULL,
	"size" integer NOT NULL,
	"pages" integer,
	"chars" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attachments_size_positive" CHECK ("attachments"."size" > 0)
);
--> statement-breakpoint
ALTER TABLE "shared_conversations" ADD COLUMN "include_files" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "attachment_chunks" ADD CONSTRAINT "attachment_chunks_attachment_id_attachments_id_fk" FOREIGN KEY ("attachment_id") REFERENCES "public"."attachments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachment_data" ADD CONSTRAINT "attachment_data_attachment_id_attachments_id_fk" FOREIGN KEY ("attachment_id") REFERENCES "public"."attachments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "attachment_chunks_search_idx" ON "attachment_chunks" USING gin (to_tsvector('english', "text"));--> statement-breakpoint
CREATE INDEX "attachments_uid_idx" ON "attachments" USING btree ("uid","created_at");--> statement-breakpoint
CREATE INDEX "attachments_message_idx" ON "attachments" USING btree ("message_id");