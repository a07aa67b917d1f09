CREATE TABLE "pr_reviews" (
	"id" uuid PRIMARY KEY NOT NULL,
	"installation_id" bigint NOT NULL,
	"owner" text NOT NULL,
	"repo" text NOT NULL,
	"pull_number" integer NOT NULL,
	"head_sha" text NOT NULL,
	"check_run_id" bigint NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"worker" text NOT NULL,
	"heartbeat_at" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "pr_reviews_heartbeat" ON "pr_reviews" USING btree ("heartbeat_at");