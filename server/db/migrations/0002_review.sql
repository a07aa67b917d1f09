CREATE TABLE "adhoc_reviews" (
	"id" uuid PRIMARY KEY NOT NULL,
	"main_path" text NOT NULL,
	"files" jsonb NOT NULL,
	"result" jsonb NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "build_questions" (
	"run_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"number" integer NOT NULL,
	"text" text NOT NULL,
	"level" text NOT NULL,
	"category" text NOT NULL,
	"cites" jsonb NOT NULL,
	"result" text NOT NULL,
	"answers" jsonb NOT NULL,
	"groups" jsonb NOT NULL,
	"agreed_answer" text,
	"finding_id" uuid,
	CONSTRAINT "build_questions_run_id_id_pk" PRIMARY KEY("run_id","id")
);
--> statement-breakpoint
CREATE TABLE "claims" (
	"run_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"ord" integer NOT NULL,
	"text" text NOT NULL,
	"label" text NOT NULL,
	"explanation" text DEFAULT '' NOT NULL,
	"anchor" jsonb,
	"sources" jsonb NOT NULL,
	CONSTRAINT "claims_run_id_id_pk" PRIMARY KEY("run_id","id")
);
--> statement-breakpoint
CREATE TABLE "finding_fixes" (
	"run_id" uuid NOT NULL,
	"finding_id" uuid NOT NULL,
	"file" text NOT NULL,
	"patch" text NOT NULL,
	"explanation" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "finding_fixes_run_id_finding_id_pk" PRIMARY KEY("run_id","finding_id")
);
--> statement-breakpoint
CREATE TABLE "review_runs" (
	"run_id" uuid PRIMARY KEY NOT NULL,
	"readers" integer NOT NULL,
	"calls" integer DEFAULT 0 NOT NULL,
	"cached_calls" integer DEFAULT 0 NOT NULL,
	"tokens_in" bigint DEFAULT 0 NOT NULL,
	"tokens_out" bigint DEFAULT 0 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"worker" text,
	"heartbeat_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "run_events" (
	"run_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"name" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "run_events_run_id_seq_pk" PRIMARY KEY("run_id","seq")
);
--> statement-breakpoint
CREATE TABLE "step_cache" (
	"key" text PRIMARY KEY NOT NULL,
	"stage" text NOT NULL,
	"model" text NOT NULL,
	"answer" text NOT NULL,
	"tokens_in" integer NOT NULL,
	"tokens_out" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "build_questions" ADD CONSTRAINT "build_questions_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "claims" ADD CONSTRAINT "claims_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finding_fixes" ADD CONSTRAINT "finding_fixes_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_runs" ADD CONSTRAINT "review_runs_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_events" ADD CONSTRAINT "run_events_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "adhoc_reviews_expires" ON "adhoc_reviews" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "review_runs_heartbeat" ON "review_runs" USING btree ("heartbeat_at");