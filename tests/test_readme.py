"""Every command in the ```sh blocks of README.md and docs/*.md exists on a fresh clone and at
least parses, and every link between those pages leads somewhere.

`scripts/run X` is `.venv/bin/hearth X` once set-up is done (the script's last line), so those
run through `.venv/bin/hearth` and never set anything up here. A few read-only commands run
as written, in a temporary HEARTH_HOME; every other command runs with `--help` added (before a
`--`, so what follows it is never run), so nothing downloads, opens a window or builds.
`scripts/test` is only checked to exist: it is what runs this test. A command written in
several pages is checked once.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
HEARTH = ROOT / ".venv" / "bin" / "hearth"
README_MAX_LINES = 250
# Read-only commands, run exactly as the pages write them.
AS_WRITTEN = {
    ("scripts/run", "models", "list"),
    ("scripts/run", "models", "threads"),
    ("scripts/run", "audit", "list"),
    ("scripts/run", "files", "list"),
    ("scripts/run", "calendar", "list"),
    ("scripts/run", "calendar", "status"),
    ("scripts/run", "calendar", "events", "thursday"),
    ("scripts/run", "calendar", "conflicts"),
    ("scripts/run", "mail", "list"),
    ("scripts/run", "mail", "status"),
    ("scripts/run", "mail", "outbox"),
    ("scripts/run", "undo", "--list"),
    ("scripts/run", "voice", "status"),
    ("scripts/run", "voice", "models"),
}
NOT_RUN = {("scripts/test",)}


def sh_commands(markdown: str) -> list[tuple[str, ...]]:
    """The commands of every ```sh block, one per line, with their comments dropped."""
    blocks = re.findall(r"^```sh\n(.*?)^```", markdown, flags=re.DOTALL | re.MULTILINE)
    commands = [tuple(shlex.split(line, comments=True)) for b in blocks for line in b.splitlines()]
    return [command for command in commands if command]


def problem(command: tuple[str, ...], home: Path) -> str | None:
    """Why `command` would not work on a fresh clone, or None if it does."""
    program = ROOT / command[0]
    if not (program.is_file() and os.access(program, os.X_OK)):
        return f"{command[0]} is not an executable in the checkout"
    if command in NOT_RUN:
        return None
    argv = [str(HEARTH), *command[1:]] if command[0] == "scripts/run" else list(command)
    if command not in AS_WRITTEN:
        end = argv.index("--") if "--" in argv else len(argv)
        argv.insert(end, "--help")
    env = {**os.environ, "HEARTH_HOME": str(home)}
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        return f"exit {done.returncode}: {done.stderr.strip()[-2000:]}"
    return None


def page_name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def outside_code(markdown: str) -> list[str]:
    """The lines of `markdown` that are not inside a fenced code block."""
    lines, fenced = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of `markdown`."""
    found: set[str] = set()
    for line in outside_code(markdown):
        heading = re.match(r"#{1,6} +(.*)", line)
        if heading:
            slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
            suffix = 1
            anchor = slug
            while anchor in found:
                anchor, suffix = f"{slug}-{suffix}", suffix + 1
            found.add(anchor)
    return found


def broken_links(page: Path) -> list[str]:
    """The relative links of `page` whose file or heading does not exist."""
    broken = []
    for line in outside_code(page.read_text(encoding="utf-8")):
        for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", line)):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists() or (
                anchor
                and linked.suffix == ".md"
                and anchor not in anchors(linked.read_text(encoding="utf-8"))
            ):
                broken.append(target)
    return broken


COMMANDS_BY_PAGE = {page_name(p): sh_commands(p.read_text(encoding="utf-8")) for p in PAGES}
# Each command once, under the first page that writes it.
FIRST_PAGE: dict[tuple[str, ...], str] = {}
for name, page_commands in COMMANDS_BY_PAGE.items():
    for command in page_commands:
        FIRST_PAGE.setdefault(command, name)


def test_the_readme_has_commands_to_check() -> None:
    commands = COMMANDS_BY_PAGE["README.md"]
    assert ("scripts/run",) in commands
    assert ("scripts/test",) in commands  # CI runs what the README names
    assert any(command[0] == "scripts/run" and len(command) > 2 for command in commands)


def test_the_readme_is_a_short_first_page() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= README_MAX_LINES


def test_scripts_run_is_the_hearth_command_after_set_up() -> None:
    script = (ROOT / "scripts" / "run").read_text(encoding="utf-8")
    assert script.rstrip().splitlines()[-1] == 'exec "$root/.venv/bin/hearth" "$@"'


@pytest.mark.parametrize(
    "command", FIRST_PAGE, ids=[f"{page}: {shlex.join(c)}" for c, page in FIRST_PAGE.items()]
)
def test_documented_command_works(command: tuple[str, ...], tmp_path: Path) -> None:
    assert problem(command, tmp_path) is None


@pytest.mark.parametrize("page", PAGES, ids=page_name)
def test_links_lead_somewhere(page: Path) -> None:
    assert broken_links(page) == []


@pytest.mark.parametrize(
    "command",
    [("scripts/run", "frobnicate"), ("hearth", "models", "list"), ("scripts/nonexistent",)],
    ids=shlex.join,
)
def test_a_command_that_does_not_exist_is_caught(command: tuple[str, ...], tmp_path: Path) -> None:
    assert problem(command, tmp_path) is not None


def test_a_link_that_leads_nowhere_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## A part\n", encoding="utf-8")
    page.write_text(
        "# Page\n\n[ok](other.md#a-part) [gone](plugins.md) [no part](other.md#nothing)\n"
        "[here](#page) [web](https://example.com) `[code](nowhere.md)`\n",
        encoding="utf-8",
    )
    assert broken_links(page) == ["plugins.md", "other.md#nothing"]
