"""Collect the corpus's documentation programs: every @example of @strudel/* 1.2.6.

strudel.cc's function reference is generated from these jsdoc @example blocks,
so they are Strudel's own documentation of how each function is written. Run
from the repository root, with the packages unpacked in the folders named on
the command line (tests/patterns/strudel/node_modules/@strudel/{core,mini,tonal}
and `npm pack`-ed @strudel/draw, @strudel/webaudio, @strudel/codemirror 1.2.6):

    python -m tests.patterns.realworld.collect FOLDER...

Writes one `doc-<package>-<function>[-k].strudel` per distinct example, with its
source in a first-line comment. Examples that Strudel itself cannot run under
node (MIDI, OSC, the editor's widgets) are left out by `--skip NAME...`.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

HERE = Path(__file__).parent
_BLOCK = re.compile(r"/\*\*(.*?)\*/", re.S)
_NAME = re.compile(r"@name\s+(\S+)")
_EXAMPLE = re.compile(r"@example\s*\n(.*?)(?=\n\s*\*\s*@|\Z)", re.S)


def examples(folder: Path) -> list[tuple[str, str, str]]:
    """(file name, function name, code) of each @example in the folder's .mjs files."""
    found = []
    for path in sorted(folder.glob("*.mjs")):
        for block in _BLOCK.finditer(path.read_text(encoding="utf-8")):
            name = _NAME.search(block.group(1))
            for example in _EXAMPLE.finditer(block.group(1)):
                lines = [re.sub(r"^\s*\* ?", "", line) for line in example.group(1).split("\n")]
                code = "\n".join(lines).strip()
                if code:
                    found.append((path.name, name.group(1) if name else "", code))
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--skip", nargs="*", default=[], help="file stems to leave out")
    args = parser.parse_args()
    seen: set[str] = set()
    for folder in args.folders:
        package = folder.name if folder.name != "package" else folder.parent.name.split("-")[1]
        for file, name, code in examples(folder):
            if code in seen:
                continue
            seen.add(code)
            slug = re.sub(r"[^A-Za-z0-9]+", "_", name or Path(file).stem).strip("_")
            stem = f"doc-{package}-{slug}"
            k = 1
            while (HERE / f"{stem}{'' if k == 1 else f'-{k}'}.strudel").exists():
                k += 1
            stem = f"{stem}{'' if k == 1 else f'-{k}'}"
            if stem in args.skip:
                continue
            source = f"// source: @strudel/{package} 1.2.6, {file}, @example of {name or 'the file'}\n"
            (HERE / f"{stem}.strudel").write_text(source + code + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
