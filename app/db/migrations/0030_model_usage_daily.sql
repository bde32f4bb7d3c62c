-- Replies per UTC day and model, kept as exchanges are stored, so /admin/usage reads no messages (docs/decisions/102).
CREATE TABLE "model_usage_daily" (
	"day" date NOT NULL,
	"model" text NOT NULL,
	"replies" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_micro_usd" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "model_usage_daily_day_model_pk" PRIMARY KEY("day","model")
);
--> statement-breakpoint
-- What the page summed from messages until now, kept from here on by saveExchange (app/data/messages.server.ts).
INSERT INTO "model_usage_daily" ("day", "model", "replies", "input_tokens", "output_tokens", "cost_micro_usd")
SELECT ("created_at" AT TIME ZONE 'UTC')::date, "model", count(*), coalesce(sum("input_tokens"), 0), coalesce(sum("output_tokens"), 0), coalesce(sum("cost_micro_usd"), 0)
FROM "messages" WHERE "role" = 'assistant' AND "model" IS NOT NULL
GROUP BY 1, 2;
