#!/usr/bin/env bash
# A conductor and three musicians work through three tasks on the board,
# driven only by `bandstand board` commands:
#   task-01  two checkpoint reviews (the first one rejected), then completion;
#   task-02  the musician is killed with SIGKILL mid-task; the conductor sees
#            the stale heartbeat, proposes a fix, and a new session resumes
#            as musician-task-02-S2 (no HANDOFF: a forced exit) and completes;
#   task-03  the musician runs out of context: it writes a HANDOFF and
#            escalates; a new session resumes as -S2 from the HANDOFF.
#
#   examples/board/orchestra.sh [WORKDIR]
# The board is $BANDSTAND_BOARD (default: a SQLite file in WORKDIR); set it to
# a postgresql:// URL to run the same play on PostgreSQL.
set -euo pipefail
work=${1:-$(mktemp -d)}
mkdir -p "$work"
export BANDSTAND_BOARD=${BANDSTAND_BOARD:-sqlite:///$work/board.db}
export BANDSTAND_BOARD_STALE_AFTER=${BANDSTAND_BOARD_STALE_AFTER:-2}   # seconds, so the demo is quick
bb() { bandstand board --workdir "$work" "$@"; }
log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*"; }

state_of() { bb --json show "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])'; }
await_state() {  # await_state TASK STATE... — poll until the task is in one of the states
    local task=$1; shift
    while true; do
        local s; s=$(state_of "$task")
        for want in "$@"; do [ "$s" = "$want" ] && { echo "$s"; return 0; }; done
        sleep 0.2
    done
}

review() {  # review TASK SESSION N M — checkpoint n of m
    bb request-review "$1" -s "$2" --smoothness 8 --checkpoint "$3/$4" --context $((20 * $3)) \
        --summary "checkpoint $3 of $4" --tests "pytest: all passed" --output "src/$1.py:modified" >/dev/null
}

finish() {  # finish TASK SESSION — the completion report, approval, then the last write
    bb status "$1" "final verification passed" --ctx 60
    bb report-completion "$1" -s "$2" --smoothness 9 --checkpoint 2/2 --context 60 --summary "$1 done" >/dev/null
    await_state "$1" review_approved >/dev/null
    bb resume "$1" -s "$2" >/dev/null
    bb complete "$1" -s "$2" --summary "$1 complete" >/dev/null
    log "$2: $1 complete"
}

musician_steady() {  # task-01: reviews, one rejected
    local s=m-anna t=task-01
    bb claim "$t" -s "$s" >/dev/null && log "$s: claimed $t"
    bb status "$t" "step 1 started" --ctx 10
    review "$t" "$s" 1 2
    while [ "$(await_state "$t" review_approved review_failed)" = review_failed ]; do
        bb status "$t" "addressing review feedback" --ctx 25
        review "$t" "$s" 1 2
    done
    bb resume "$t" -s "$s" >/dev/null
    bb status "$t" "step 2 started" --ctx 40
    finish "$t" "$s"
}

musician_doomed() {  # task-02: claims, works, and hangs until it is killed
    local s=m-bert t=task-02
    bb claim "$t" -s "$s" >/dev/null && log "$s: claimed $t"
    bb status "$t" "step 1 started" --ctx 10
    bb heartbeat "$t" -s "$s" >/dev/null
    exec sleep 3600   # the process the conductor will kill
}

musician_tired() {  # task-03: context runs out → HANDOFF → escalate
    local s=m-cleo t=task-03
    bb claim "$t" -s "$s" >/dev/null && log "$s: claimed $t"
    bb status "$t" "step 1 started" --ctx 30
    bb status "$t" "step 1 completed" --ctx 78
    bb write-handoff "$t" -s "$s" --completed "step 1" --pending "step 2: docs" --next "write the docs page" >/dev/null
    bb context-warning "$t" -s "$s" --context 85 >/dev/null
    log "$s: context at 85%, HANDOFF written, escalated"
}

resumer() {  # resumer TASK SESSION — claim a fix_proposed task, assess, verify, finish
    local t=$1 s=$2
    bb claim "$t" -s "$s" >/dev/null
    log "$s: claimed $t as $(bb --json show "$t" | python3 -c 'import json,sys; print(json.load(sys.stdin)["worked_by"])')"
    bb assess-resumption "$t" | sed "s/^/    /" || true
    bb status "$t" "takeover by $s: re-running verification" --ctx 5
    finish "$t" "$s"
}

bb init --session conductor >/dev/null
for t in task-01 task-02 task-03; do bb create "$t" >/dev/null; done
log "conductor: board ready ($BANDSTAND_BOARD)"

musician_steady & steady=$!
musician_doomed & doomed=$!
musician_tired & tired=$!

rejected=0 killed=0 resumed_02=0 resumed_03=0
st() { tr ' ' '\n' <<<"$states" | sed -n "s/^$1=//p"; }
while true; do
    states=$(bb --json list | python3 -c 'import json,sys; print(" ".join(t["task_id"] + "=" + t["state"] for t in json.load(sys.stdin)))')
    # reviews: reject the very first review request, approve everything else
    for t in task-01 task-02 task-03; do
        if [ "$(st "$t")" = needs_review ]; then
            if [ "$t" = task-01 ] && [ $rejected = 0 ]; then
                bb reject "$t" -s conductor --feedback "add a test for the empty case" >/dev/null; rejected=1
                log "conductor: $t review rejected"
            else
                bb approve "$t" -s conductor --note "looks good" >/dev/null
                log "conductor: $t approved"
            fi
        fi
    done
    # the crash: kill the task-02 musician once it is working
    if [ $killed = 0 ] && [ "$(st task-02)" = working ]; then
        sleep 0.5; kill -9 "$doomed" 2>/dev/null || true; killed=1
        log "conductor: (the musician on task-02 was killed with SIGKILL)"
    fi
    # stale working tasks → propose a fix, start a resuming session
    if [ $killed = 1 ] && [ $resumed_02 = 0 ] && bb stale | grep -q task-02; then
        bb propose-fix task-02 -s conductor --fix "the session died: resume from step 1" >/dev/null
        log "conductor: task-02 heartbeat stale → fix proposed"
        resumer task-02 m-dana & resumed_02=1
    fi
    # escalation on task-03 → propose a fix, start a resuming session
    if [ $resumed_03 = 0 ] && [ "$(st task-03)" = error ]; then
        bb propose-fix task-03 -s conductor --fix "continue from the HANDOFF" >/dev/null
        log "conductor: task-03 escalated → fix proposed"
        resumer task-03 m-emil & resumed_03=1
    fi
    [ "$(st task-01)$(st task-02)$(st task-03)" = completecompletecomplete ] && break
    bb heartbeat task-00 -s conductor >/dev/null
    sleep 0.3
done
wait 2>/dev/null || true
bb request-exit task-00 -s conductor --reason "all tasks complete" >/dev/null
log "conductor: all tasks complete"
bb list
