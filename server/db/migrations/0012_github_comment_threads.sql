CREATE TABLE "github_comment_threads" (
	"comment_id" bigint PRIMARY KEY NOT NULL,
	"thread_id" uuid NOT NULL,
	"repo" text NOT NULL,
	"pull_number" integer NOT NULL,
	"root_comment_id" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "github_comment_threads" ADD CONSTRAINT "github_comment_threads_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "github_comment_threads_thread" ON "github_comment_threads" USING btree ("thread_id");