-- The board schema: what the numbered migrations produce, in one file.
-- Timestamps are ISO-8601 UTC text with fixed width, so they sort and compare as text
-- the same way on both stores.

CREATE TABLE orchestration_tasks (
    task_id          TEXT PRIMARY KEY,
    state            TEXT NOT NULL,
    session_id       TEXT,
    worked_by        TEXT,
    phase            TEXT,
    instruction_path TEXT,
    started_at       TEXT,
    completed_at     TEXT,
    last_heartbeat   TEXT,
    retry_count      INTEGER NOT NULL DEFAULT 0,
    last_error       TEXT,
    report_path      TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL
);

CREATE TABLE orchestration_messages (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_id      TEXT NOT NULL,
    from_session TEXT,
    message_type TEXT NOT NULL,
    message      TEXT NOT NULL,
    "timestamp"  TEXT NOT NULL
);

CREATE INDEX idx_tasks_state ON orchestration_tasks (state, task_id);
CREATE INDEX idx_tasks_session ON orchestration_tasks (session_id);
CREATE INDEX idx_messages_task_id ON orchestration_messages (task_id, id);
