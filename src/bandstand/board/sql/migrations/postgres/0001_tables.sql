-- The task board's two tables.
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
