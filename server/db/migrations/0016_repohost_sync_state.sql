ALTER TABLE "repohost_sources" ADD COLUMN "sync_state" text DEFAULT 'idle' NOT NULL;--> statement-breakpoint
ALTER TABLE "repohost_sources" ADD COLUMN "resume_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "repohost_sources" ADD COLUMN "rate_limit_strikes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "repohost_sources" ADD COLUMN "lease_until" timestamp with time zone;