CREATE TABLE "thread_messages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"thread_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"author_kind" text NOT NULL,
	"author_id" text,
	"author_name" text NOT NULL,
	"body" text NOT NULL,
	"sources" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"decision" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "threads" (
	"id" uuid PRIMARY KEY NOT NULL,
	"doc_id" uuid,
	"bundle_id" uuid,
	"profile_key" text,
	"anchor_kind" text NOT NULL,
	"anchor" jsonb NOT NULL,
	"anchored_version_id" uuid,
	"anchored_version_number" bigint,
	"addressed_to" text NOT NULL,
	"title" text NOT NULL,
	"handoff_id" uuid,
	"handoff_version" bigint DEFAULT 0 NOT NULL,
	"blocking" boolean DEFAULT false NOT NULL,
	"status" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_message_at" timestamp with time zone NOT NULL,
	"message_count" integer DEFAULT 0 NOT NULL,
	"answering" boolean DEFAULT false NOT NULL,
	"ai_error" text,
	"decision_message_id" uuid
);
--> statement-breakpoint
ALTER TABLE "thread_messages" ADD CONSTRAINT "thread_messages_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "threads" ADD CONSTRAINT "threads_doc_id_docs_id_fk" FOREIGN KEY ("doc_id") REFERENCES "public"."docs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "threads" ADD CONSTRAINT "threads_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "thread_messages_seq" ON "thread_messages" USING btree ("thread_id","seq");--> statement-breakpoint
CREATE INDEX "threads_doc" ON "threads" USING btree ("doc_id","status");--> statement-breakpoint
CREATE INDEX "threads_profile" ON "threads" USING btree ("profile_key","status");