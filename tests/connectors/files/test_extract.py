"""Text extraction from real files, including hostile ones: caps, binary sniffing, the sandbox.

The misbehaving parsers at the top are real functions that the real sandbox runs in its worker
processes (they are pickled by name, as `parse_pdf` is); they stand in for a parser that spins,
or is killed from outside, where no file reliably makes pypdf do so. Time limits and memory caps
are also tested end to end with a real PDF that pypdf really takes seconds and hundreds of MB on.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest

from hearth.connectors.files.documents import parse_pdf
from hearth.connectors.files.extract import (
    Extracted,
    Limits,
    SandboxClosed,
    TextExtractor,
    kind_of,
)
from hearth.connectors.files.sandbox import ParserCrashed, ParserSandbox
from tests.connectors.files.samples import (
    make_docx,
    make_encrypted_pdf,
    make_pdf,
    make_random,
    make_slow_pdf,
    make_sparse,
    make_sparse_text,
    make_text,
    make_zip,
    make_zip_bomb,
    truncate,
)

GB = 1 << 30


def spin_forever(path: str, max_chars: int) -> str:
    """A parser stuck in a loop; it marks `path` first so a test knows it is running."""
    Path(path).write_text("started")
    while True:
        pass


def die_by_sigkill(path: str, max_chars: int) -> str:
    """A parser whose process is killed from outside, as the kernel's OOM killer would."""
    os.kill(os.getpid(), signal.SIGKILL)
    return ""


def parser_pids() -> set[int]:
    """Child processes running a multiprocessing worker (not its resource tracker)."""
    pids = set()
    for child in psutil.Process().children():
        try:
            if any("spawn_main" in part for part in child.cmdline()):
                pids.add(child.pid)
        except psutil.Error:
            continue
    return pids


@pytest.fixture(scope="module")
def extractor() -> Iterator[TextExtractor]:
    with TextExtractor() as shared:
        yield shared


def test_kinds_come_from_the_suffix_ignoring_case() -> None:
    assert [kind_of(Path(name)) for name in ("a.TXT", "b.Markdown", "c.md", "d.Pdf", "e.docx")] == [
        "txt",
        "md",
        "md",
        "pdf",
        "docx",
    ]
    assert kind_of(Path("notes.log")) == kind_of(Path("table.csv")) == "txt"
    assert (
        kind_of(Path("old.doc")) == kind_of(Path("photo.jpg")) == kind_of(Path("README")) == "other"
    )


def test_text_and_markdown(tmp_path: Path, extractor: TextExtractor) -> None:
    notes = make_text(tmp_path / "notes.txt", "Remember the heron survey.\n")
    plan = make_text(tmp_path / "plan.md", "# Plan\n\n- migrate the *database*\n")
    assert extractor.extract(notes) == Extracted("txt", "Remember the heron survey.\n")
    assert extractor.extract(plan) == Extracted("md", "# Plan\n\n- migrate the *database*\n")
    assert extractor.extract(make_text(tmp_path / "photo.jpg", "x")) == Extracted("other", "")


@pytest.mark.parametrize("encoding", ["utf-8-sig", "latin-1", "cp1252", "utf-16", "utf-32"])
def test_encodings(tmp_path: Path, extractor: TextExtractor, encoding: str) -> None:
    text = "Crème brûlée for the café, naïve façade.\n"
    result = extractor.extract(make_text(tmp_path / "menu.txt", text, encoding))
    assert result == Extracted("txt", text)


def test_mostly_utf8_keeps_its_letters_and_marks_the_bad_byte(
    tmp_path: Path, extractor: TextExtractor
) -> None:
    path = tmp_path / "log.txt"
    path.write_bytes("café ".encode() * 500 + b"\xff" + b"end")
    text = extractor.extract(path).text
    assert text.startswith("café café") and text.endswith("\ufffdend")


def test_nul_bytes_past_the_sniffed_head_are_dropped(
    tmp_path: Path, extractor: TextExtractor
) -> None:
    path = tmp_path / "rotated.log"
    path.write_bytes(b"line\n" * 2000 + b"\0\0\0" + b"after\n")
    assert extractor.extract(path) == Extracted("txt", "line\n" * 2000 + "after\n")


def test_a_character_cut_by_the_read_cap_is_dropped(tmp_path: Path) -> None:
    path = make_text(tmp_path / "long.txt", "é" * 1000)
    result = TextExtractor(Limits(read_bytes=1001)).extract(path)
    assert result == Extracted("txt", "é" * 500, truncated=True)


def test_text_beyond_the_character_cap_is_cut(tmp_path: Path) -> None:
    path = make_text(tmp_path / "long.md", "word " * 1000)
    result = TextExtractor(Limits(text_chars=12)).extract(path)
    assert result == Extracted("md", "word word wo", truncated=True)


def test_binary_named_txt_is_skipped(tmp_path: Path, extractor: TextExtractor) -> None:
    nul_bytes = tmp_path / "disguised.txt"
    nul_bytes.write_bytes(b"PK\x03\x04" + bytes(100) + b"hidden")
    noise = make_random(tmp_path / "noise.txt", 50_000)
    controls = tmp_path / "controls.txt"
    controls.write_bytes(bytes(range(1, 32)) * 100)
    for path in (nul_bytes, noise, controls):
        assert extractor.extract(path) == Extracted("txt", "", "binary content")


def test_a_2_gb_text_file_is_read_only_up_to_the_cap(tmp_path: Path) -> None:
    path = make_sparse_text(tmp_path / "huge.log", 2 * GB, "first line\n")
    started = time.monotonic()
    result = TextExtractor(Limits(read_bytes=1 << 20, text_chars=2 << 20)).extract(path)
    assert time.monotonic() - started < 1
    assert result.text.startswith("first line\n") and len(result.text) == 1 << 20
    assert result.truncated and result.skipped is None


def test_a_2_gb_pdf_is_skipped_at_once_without_starting_a_parser(tmp_path: Path) -> None:
    path = make_sparse(tmp_path / "huge.pdf", 2 * GB)
    before = parser_pids()
    with TextExtractor() as fresh:
        started = time.monotonic()
        result = fresh.extract(path)
        # No parser started is the proof; the bound only rules out reading the file, with room
        # for a busy machine.
        assert time.monotonic() - started < 1
        assert parser_pids() == before
    assert result == Extracted("pdf", "", "too large to parse (2.0 GB)")


def test_what_is_not_a_readable_regular_file(tmp_path: Path, extractor: TextExtractor) -> None:
    folder = tmp_path / "folder.txt"
    folder.mkdir()
    assert extractor.extract(folder).skipped == "not a regular file"
    assert (
        extractor.extract(tmp_path / "gone.md").skipped
        == "could not read: No such file or directory"
    )
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.txt"
        os.mkfifo(fifo)  # opening a FIFO for reading would block until a writer came
        assert extractor.extract(fifo).skipped == "not a regular file"


def test_pdf_text_from_every_page(tmp_path: Path, extractor: TextExtractor) -> None:
    path = make_pdf(
        tmp_path / "invoice.pdf", ["Invoice 4411\nHeron Ltd", "Total due: 1,234 kroner"]
    )
    result = extractor.extract(path)
    assert result.skipped is None and result.kind == "pdf"
    first, second = result.text.split("\f")
    assert "Invoice 4411" in first and "Heron Ltd" in first and "1,234 kroner" in second


def test_pdf_text_stops_at_the_character_cap(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "book.pdf", [f"Chapter {n}\n" + "words " * 50 for n in range(40)])
    with TextExtractor(Limits(text_chars=1000)) as small:
        result = small.extract(path)
    assert len(result.text) == 1000 and result.truncated and "Chapter 39" not in result.text


def test_docx_paragraphs_and_table_cells(tmp_path: Path, extractor: TextExtractor) -> None:
    path = make_docx(
        tmp_path / "letter.docx",
        "Dear landlord,\nthe radiator is broken.",
        table=[["Room", "Fault"], ["Kitchen", "No heat"]],
        heading="Repairs",
    )
    text = extractor.extract(path).text
    assert text == "Repairs\nDear landlord,\nthe radiator is broken.\nRoom\tFault\nKitchen\tNo heat"


def test_malformed_pdfs_are_skipped_with_a_reason(tmp_path: Path, extractor: TextExtractor) -> None:
    cut = truncate(make_pdf(tmp_path / "cut.pdf", ["Invoice " * 300] * 3), 0.5)
    noise = make_random(tmp_path / "noise.pdf", 20_000)
    empty = make_text(tmp_path / "empty.pdf", "")
    for path in (cut, noise, empty):
        result = extractor.extract(path)
        assert result.text == "" and result.skipped and result.skipped.startswith("malformed PDF: ")


def test_encrypted_pdf_is_skipped(tmp_path: Path, extractor: TextExtractor) -> None:
    path = make_encrypted_pdf(tmp_path / "payslip.pdf", "Salary 50,000", "hunter2")
    assert extractor.extract(path).skipped == "encrypted PDF (needs a password)"


def test_corrupt_docx_is_skipped_with_a_reason(tmp_path: Path, extractor: TextExtractor) -> None:
    text_file = make_text(tmp_path / "renamed.docx", "just text, not a zip")
    cut = truncate(make_docx(tmp_path / "cut.docx", "hello " * 1000), 0.5)
    no_document = make_zip(tmp_path / "empty.docx", {"hello.txt": b"not a Word part"})
    for path in (text_file, cut):
        assert extractor.extract(path).skipped == "not a Word document (not a zip archive)"
    skipped = extractor.extract(no_document).skipped
    assert skipped and skipped.startswith("malformed DOCX: ")


def test_zip_bombs_are_refused_before_parsing(tmp_path: Path) -> None:
    huge = make_zip_bomb(tmp_path / "huge.docx", 260 << 20)
    dense = make_zip_bomb(tmp_path / "dense.docx", 20 << 20)
    crowded = make_zip(tmp_path / "crowded.docx", {f"{n:05}" + "x" * 200: b"" for n in range(5000)})
    before = parser_pids()
    with TextExtractor() as fresh:
        assert fresh.extract(huge).skipped == "zip bomb: members would expand to 260.0 MB"
        assert fresh.extract(dense).skipped == "zip bomb: word/document.xml would expand 1028x"
        assert fresh.extract(crowded).skipped == "zip bomb: its member list alone is 1.2 MB"
        assert parser_pids() == before  # refused here, not by a parser


def test_a_parser_that_runs_too_long_is_killed(tmp_path: Path) -> None:
    slow = make_slow_pdf(tmp_path / "slow.pdf")
    good = make_pdf(tmp_path / "good.pdf", "still works")
    with TextExtractor(Limits(parse_seconds=1)) as extractor:
        # Start the worker first: how long a busy machine takes to spawn it is not under test.
        assert "still works" in extractor.extract(good).text
        started = time.monotonic()
        assert extractor.extract(slow) == Extracted("pdf", "", "timed out after 1 s")
        assert time.monotonic() - started < 5
        assert "still works" in extractor.extract(good).text


def test_a_parser_that_balloons_hits_the_memory_cap(tmp_path: Path) -> None:
    # pypdf needs about 300 MB for this page; a worker starts at about 80 MB of address space.
    slow = make_slow_pdf(tmp_path / "slow.pdf")
    good = make_pdf(tmp_path / "good.pdf", "still works")
    with TextExtractor(Limits(parse_memory_mb=150, parse_seconds=20)) as extractor:
        skipped = extractor.extract(slow).skipped
        assert skipped == "parser ran out of memory (limit 150 MB)"
        assert "still works" in extractor.extract(good).text


def test_a_stuck_parse_fails_alone(tmp_path: Path) -> None:
    slow = make_slow_pdf(tmp_path / "slow.pdf")
    good = [make_pdf(tmp_path / f"good{n}.pdf", f"page of file {n}") for n in range(15)]
    with (
        TextExtractor(Limits(parse_seconds=2), workers=2) as extractor,
        ThreadPoolExecutor(8) as pool,
    ):
        results = list(pool.map(extractor.extract, [slow, *good]))
    assert results[0].skipped == "timed out after 2 s"
    assert [result.text.strip() for result in results[1:]] == [
        f"page of file {n}" for n in range(15)
    ]


def test_concurrent_extraction_from_8_threads(tmp_path: Path, extractor: TextExtractor) -> None:
    expected: dict[Path, str] = {}
    for n in range(20):
        expected[make_pdf(tmp_path / f"{n}.pdf", f"pdf number {n}")] = f"pdf number {n}"
        expected[make_docx(tmp_path / f"{n}.docx", f"docx number {n}")] = f"docx number {n}"
        expected[make_text(tmp_path / f"{n}.txt", f"text number {n}")] = f"text number {n}"
    with ThreadPoolExecutor(8) as pool:
        results = dict(zip(expected, pool.map(extractor.extract, expected), strict=True))
    assert {path: result.text.strip() for path, result in results.items()} == expected


def test_a_parser_killed_from_outside_is_reported(tmp_path: Path) -> None:
    good = make_pdf(tmp_path / "good.pdf", "still works")
    sandbox = ParserSandbox(workers=1)
    try:
        with pytest.raises(ParserCrashed, match=r"parser crashed \(SIGKILL\)"):
            sandbox.run(die_by_sigkill, good, 100, 10)
        assert "still works" in sandbox.run(parse_pdf, good, 100, 10)
    finally:
        sandbox.close()


def test_close_stops_running_parses_and_leaves_no_processes(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    others = parser_pids()
    extractor = TextExtractor()
    extractor.extract(make_pdf(tmp_path / "warm.pdf", "start a worker"))
    sandbox = extractor._sandbox
    outcome: list[BaseException] = []

    def stuck() -> None:
        try:
            sandbox.run(spin_forever, marker, 100, 60)
        except BaseException as error:
            outcome.append(error)

    thread = threading.Thread(target=stuck)
    thread.start()
    while not marker.exists():
        time.sleep(0.01)
    assert len(parser_pids() - others) == 1
    started = time.monotonic()
    extractor.close()
    extractor.close()
    thread.join(5)
    assert time.monotonic() - started < 2
    assert isinstance(outcome[0], SandboxClosed)
    assert parser_pids() == others
    assert not any(child.pid not in others for child in multiprocessing.active_children())
    with pytest.raises(SandboxClosed):
        extractor.extract(tmp_path / "warm.pdf")
