CREATE INDEX "activity_at_idx" ON "activity_entries" USING btree ("at");--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "audit_log" USING btree ("at");--> statement-breakpoint
CREATE INDEX "deliveries_updated_idx" ON "deliveries" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "outbox_completed_idx" ON "outbox" USING btree ("completed_at") WHERE completed_at IS NOT NULL;