CREATE TABLE "model_backends" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"secret_cipher" text,
	"secret_last4" text DEFAULT '' NOT NULL,
	"base_url" text,
	"preset" text,
	"command" jsonb,
	"prompt_via" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "role_assignments" (
	"role" text PRIMARY KEY NOT NULL,
	"backend_id" uuid NOT NULL,
	"model" text NOT NULL,
	"price_in_per_mtok" double precision,
	"price_out_per_mtok" double precision,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "token_use" (
	"month" text PRIMARY KEY NOT NULL,
	"tokens_in" bigint DEFAULT 0 NOT NULL,
	"tokens_out" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "role_assignments" ADD CONSTRAINT "role_assignments_backend_id_model_backends_id_fk" FOREIGN KEY ("backend_id") REFERENCES "public"."model_backends"("id") ON DELETE restrict ON UPDATE no action;