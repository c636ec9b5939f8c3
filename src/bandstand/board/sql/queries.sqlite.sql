-- Named queries for the SQLite store. Parameters are :name; one query per block.

-- name: get_task
SELECT * FROM orchestration_tasks WHERE task_id = :task_id;

-- name: list_tasks
SELECT * FROM orchestration_tasks ORDER BY task_id;

-- name: tasks_by_session
SELECT * FROM orchestration_tasks WHERE session_id = :session_id ORDER BY updated_at DESC, task_id;

-- name: insert_task
INSERT INTO orchestration_tasks
    (task_id, state, session_id, worked_by, phase, instruction_path, started_at, completed_at,
     last_heartbeat, retry_count, last_error, report_path, created_at, updated_at)
VALUES
    (:task_id, :state, :session_id, :worked_by, :phase, :instruction_path, :started_at, :completed_at,
     :last_heartbeat, 0, :last_error, NULL, :now, :now);

-- name: next_claimable
-- Candidates for claim_next, in task order (instructions are checked in code).
SELECT task_id, state, worked_by, instruction_path FROM orchestration_tasks
WHERE state = 'watching' AND task_id <> 'task-00'
ORDER BY task_id LIMIT 64;

-- name: next_claimable_in_phase
-- Candidates for claim_next within a family of phases (a batch's songs: phase 'batch:…'):
-- new tasks, and tasks the conductor handed back (a fix after a crash, an exit to finish).
SELECT task_id, state, worked_by, instruction_path FROM orchestration_tasks
WHERE state IN ('watching', 'fix_proposed', 'exit_requested') AND phase LIKE :phase_prefix
  AND task_id <> 'task-00'
ORDER BY task_id LIMIT 64;

-- name: claim
-- The guarded claim: only from a claimable state, and only if nobody moved the
-- task since we read it (same state and worked_by).
UPDATE orchestration_tasks
SET state = 'working', session_id = :session_id, worked_by = :worked_by, started_at = :now,
    last_heartbeat = :now, retry_count = 0, updated_at = :now
WHERE task_id = :task_id AND state = :expected_state
  AND state IN ('watching', 'fix_proposed', 'exit_requested')
  AND COALESCE(worked_by, '') = COALESCE(:expected_worked_by, '');

-- name: move_fenced
-- A musician's move: only the session that holds the task, only from the state it saw.
UPDATE orchestration_tasks
SET state = :to_state, last_heartbeat = :now, updated_at = :now,
    completed_at = CASE WHEN :terminal = 1 THEN :now ELSE completed_at END,
    last_error = COALESCE(:last_error, last_error),
    report_path = COALESCE(:report_path, report_path),
    retry_count = retry_count + :retry_increment
WHERE task_id = :task_id AND state = :from_state AND session_id = :session_id;

-- name: move_by_conductor
UPDATE orchestration_tasks
SET state = :to_state, last_heartbeat = :now, updated_at = :now,
    last_error = COALESCE(:last_error, last_error)
WHERE task_id = :task_id AND state = :from_state;

-- name: heartbeat
UPDATE orchestration_tasks SET last_heartbeat = :now
WHERE task_id = :task_id AND session_id = :session_id
  AND state NOT IN ('complete', 'exited');

-- name: backdate_heartbeat
UPDATE orchestration_tasks SET last_heartbeat = :heartbeat WHERE task_id = :task_id;

-- name: stale_tasks
-- Old heartbeats outside the terminal states; which states count is decided in code (states.RECOVERY).
SELECT * FROM orchestration_tasks
WHERE state NOT IN ('complete', 'exited') AND last_heartbeat < :cutoff AND task_id <> 'task-00'
ORDER BY task_id;

-- name: lock_messages
-- Writers are already serialised by BEGIN IMMEDIATE, so ids appear in order.
SELECT 1;

-- name: insert_message
INSERT INTO orchestration_messages (task_id, from_session, message_type, message, "timestamp")
VALUES (:task_id, :from_session, :message_type, :message, :now)
RETURNING id;

-- name: messages_since
SELECT * FROM orchestration_messages WHERE id > :after_id ORDER BY id LIMIT :limit;

-- name: task_messages_since
SELECT * FROM orchestration_messages WHERE task_id = :task_id AND id > :after_id ORDER BY id LIMIT :limit;

-- name: last_message_of_type
SELECT * FROM orchestration_messages WHERE task_id = :task_id AND message_type = :message_type
ORDER BY id DESC LIMIT 1;

-- name: max_message_id
SELECT COALESCE(MAX(id), 0) AS max_id FROM orchestration_messages;
