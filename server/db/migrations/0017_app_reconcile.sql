CREATE TABLE "app_comment_answers" (
	"kind" text NOT NULL,
	"comment_id" bigint NOT NULL,
	"command" text NOT NULL,
	"answered_at" timestamp with time zone NOT NULL,
	CONSTRAINT "app_comment_answers_kind_comment_id_pk" PRIMARY KEY("kind","comment_id")
);
--> statement-breakpoint
CREATE TABLE "app_pull_checks" (
	"owner" text NOT NULL,
	"repo" text NOT NULL,
	"pull_number" integer NOT NULL,
	"head_sha" text NOT NULL,
	"check_run_id" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "app_pull_checks_owner_repo_pull_number_head_sha_pk" PRIMARY KEY("owner","repo","pull_number","head_sha")
);
--> statement-breakpoint
CREATE TABLE "app_reconcile" (
	"id" text PRIMARY KEY NOT NULL,
	"holder" text,
	"lease_until" timestamp with time zone,
	"since" timestamp with time zone,
	"last_pass_at" timestamp with time zone,
	"safety_net" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE "repohost_deliveries" ADD COLUMN "started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "repohost_deliveries" ADD COLUMN "worker" text;--> statement-breakpoint
ALTER TABLE "repohost_deliveries" ADD COLUMN "attempts" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "repohost_deliveries" ADD COLUMN "finished_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "repohost_deliveries" ADD COLUMN "failed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "repohost_deliveries" ADD COLUMN "redelivered_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "repohost_deliveries" ADD COLUMN "scope" text;--> statement-breakpoint
-- Deliveries recorded before this version were recorded when their handler started and forgotten when it failed: the ones kept are done.
UPDATE "repohost_deliveries" SET "started_at" = "received_at", "finished_at" = "received_at" WHERE "finished_at" IS NULL;