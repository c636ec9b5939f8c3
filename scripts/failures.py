"""Why each test of a pytest log failed, in a few lines: its name, then for each frame of its
traceback the line that ran (`> …`), its place (`path:line: Error`) and the error's own lines
(`E …`), at most `--lines` of them per test. scripts/test prints this for the parallel run after the `alone` run, so the
end of a CI log — often all that is kept of it — says which line failed and why.

    python scripts/failures.py LOG [--lines 12]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

HEADER = re.compile(r"^_{3,} (.+?) _{3,}$")
PLACE = re.compile(r"^\S[^ ]*\.py:\d+:( |$)")
SECTION = re.compile(r"^={3,} (.+?) ={3,}$")


def failures(log: str, lines: int = 12) -> list[str]:
    """Each failure of the FAILURES and ERRORS sections: its header, then its lines that ran,
    places and error lines — the test's own line and place, and the last of the rest, `lines` in
    all (the deepest frames say what went wrong, the test's own line where)."""
    out: list[str] = []
    test: str | None = None
    found: list[str] = []
    inside = False

    def close() -> None:
        if test is not None:
            kept = found if len(found) <= lines else _shortened(found, lines)
            out.append(f"{test}:")
            out.extend(f"    {line}" for line in kept)

    for line in log.splitlines():
        section = SECTION.match(line)
        if section:
            close()
            test, found = None, []
            inside = section.group(1).strip() in ("FAILURES", "ERRORS")
            continue
        if not inside:
            continue
        header = HEADER.match(line)
        if header:
            close()
            test, found = header.group(1), []
        elif test is not None and (line.startswith(("E ", "> ")) or PLACE.match(line)):
            found.append(re.sub(r"^([>E])\s+", r"\1 ", line.strip())[:300])
    close()
    return out


def _shortened(found: list[str], lines: int) -> list[str]:
    """`lines` of a long traceback: the test's own line and place (its first frame), the first
    of the error's lines (what was expected, what was there) and the place it was raised."""
    head = found[:2] if len(found) > 1 and not found[1].startswith(("E ", "> ")) else found[:1]
    errors = [line for line in found[len(head):] if line.startswith("E ")]
    last = [found[-1]] if not found[-1].startswith(("E ", "> ")) else []
    room = max(1, lines - len(head) - len(last) - 1)
    return [*head, *errors[:room], f"… {len(found) - len(head) - min(room, len(errors)) - len(last)} lines", *last]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="a pytest run's output")
    parser.add_argument("--lines", type=int, default=12, help="error lines kept per test (default 12)")
    args = parser.parse_args(argv)
    try:
        text = args.log.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        print(f"failures: cannot read {args.log}: {exc.strerror}", file=sys.stderr)
        return 2
    print("\n".join(failures(text, args.lines)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
