-- Lookups by state (claims, stale detection) and by task + id (watchers).
CREATE INDEX idx_tasks_state ON orchestration_tasks (state, task_id);
CREATE INDEX idx_tasks_session ON orchestration_tasks (session_id);
CREATE INDEX idx_messages_task_id ON orchestration_messages (task_id, id);
