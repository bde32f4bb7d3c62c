-- Secrets the app makes for itself, shared by every instance (docs/decisions/076: the contact form's signed challenges).
CREATE TABLE "server_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"secret" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
