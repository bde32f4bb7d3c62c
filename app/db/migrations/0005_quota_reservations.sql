CREATE TABLE "quota_reservations" (
	"uid" text NOT NULL,
	"message_id" uuid NOT NULL,
	"day" date NOT NULL,
	"reserved_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "quota_reservations_uid_message_id_pk" PRIMARY KEY("uid","message_id")
);
