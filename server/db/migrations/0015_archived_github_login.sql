CREATE TABLE "used_oauth_states" (
	"hash" text PRIMARY KEY NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bundles" ADD COLUMN "archived_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "github_login" text;--> statement-breakpoint
CREATE UNIQUE INDEX "users_github_login" ON "users" USING btree ("github_login");--> statement-breakpoint
UPDATE "bundles" SET "archived_at" = coalesce("gone_at", now()), "gone_at" = NULL
  WHERE "id" IN (SELECT rb."bundle_id" FROM "repohost_bundles" rb JOIN "repohost_sources" s ON s."id" = rb."source_id" WHERE s."deleted_at" IS NOT NULL);
