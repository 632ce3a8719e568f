-- Audit entries recorded from bus messages (settings.changed) carry the message's id:
-- a redelivered message finds its entry already there and inserts nothing.
-- Entries written by this service's own transactions leave it null (NULLs never collide).
ALTER TABLE audit_log ADD COLUMN message_id text;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_message_id_length CHECK (message_id IS NULL OR length(message_id) <= 200);
CREATE UNIQUE INDEX audit_log_message_id ON audit_log (message_id);
