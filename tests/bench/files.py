"""Files benchmark: prints JSON. Run: .venv/bin/python tests/bench/files.py [--files N]

On a generated corpus of N mixed files (txt, md, pdf, docx), measured in one run:
- index throughput: files per second for a first, full index;
- search latency (median, p95) of the index for single-word queries: words only one file
  holds, and words drawn with the frequencies they have in the text (Zipf-distributed, so some
  occur in most files);
- the same queries with `grep -rli` (or `rg -li` when installed) over the same tree, and the
  ratio grep / index. grep reads only plain text; it cannot see inside PDFs or .docx files,
  so the comparison flatters grep.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from hearth.connectors.files.extract import TextExtractor
from hearth.connectors.files.index import FileIndex, Query
from hearth.connectors.files.scanner import Scanner
from tests.connectors.files.samples import make_docx, make_pdf

_COMMON_TEXT = (
    "budget invoice meeting garden recipe travel contract report holiday school doctor "
    "insurance tax receipt project draft letter family photo music bicycle kitchen window "
    "garage landlord heating energy bank account salary pension birthday wedding concert "
    "library museum hospital airport station harbour market bakery"
)
_SYLLABLE_TEXT = "ka to mi ne ru sa lo vi de pa gu fe ri no ma te"
COMMON = _COMMON_TEXT.split()
SYLLABLES = _SYLLABLE_TEXT.split()
ZIPF_EXPONENT = 1.07  # word frequencies in real text fall off roughly as 1 / rank


def vocabulary(size: int, rng: random.Random) -> list[str]:
    """Real words spread among pseudo-words, in a random frequency order."""
    words = {"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(size)}
    ranked = sorted(words | set(COMMON))
    rng.shuffle(ranked)
    return ranked


def zipf_weights(count: int) -> list[float]:
    weights, total = [], 0.0
    for rank in range(1, count + 1):
        total += rank**-ZIPF_EXPONENT
        weights.append(total)
    return weights


KINDS = (("txt", 0.55), ("md", 0.33), ("pdf", 0.08), ("docx", 0.04))


def generate(
    root: Path, count: int, seed: int = 7
) -> tuple[dict[str, int], list[str], list[float]]:
    """A tree of `count` files, 100 per folder, each holding one unique marker word."""
    rng = random.Random(seed)
    words = vocabulary(8000, rng)
    weights = zipf_weights(len(words))
    made = dict.fromkeys((kind for kind, _ in KINDS), 0)
    for n in range(count):
        folder = root / f"area-{n // 1000:02d}" / f"box-{n // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        kind = rng.choices([k for k, _ in KINDS], [w for _, w in KINDS])[0]
        body = " ".join(rng.choices(words, cum_weights=weights, k=rng.randint(80, 400)))
        text = f"{body} marker{n:05d}"
        path = folder / f"file-{n:05d}.{kind}"
        if kind == "pdf":
            make_pdf(path, text)
        elif kind == "docx":
            make_docx(path, text)
        else:
            path.write_text(text)
        made[kind] += 1
    return made, words, weights


def timed(run: object) -> float:
    started = time.perf_counter()
    run()  # type: ignore[operator]
    return (time.perf_counter() - started) * 1000


def grep_command(word: str, root: Path) -> list[str]:
    if shutil.which("rg"):
        return ["rg", "-li", "--no-messages", word, str(root)]
    return ["grep", "-rli", word, str(root)]


def measure(queries: list[str], index: FileIndex, root: Path) -> tuple[list[float], list[float]]:
    index_ms, grep_ms = [], []
    for word in queries:  # interleaved, so both see the same cache state
        index_ms.append(timed(lambda w=word: index.search(Query(w), [root])))
        grep_ms.append(
            timed(lambda w=word: subprocess.run(grep_command(w, root), capture_output=True))
        )
    return index_ms, grep_ms


def latency(index_ms: list[float], grep_ms: list[float]) -> dict[str, float]:
    def p95(values: list[float]) -> float:
        return statistics.quantiles(values, n=20)[-1]

    index_median, grep_median = statistics.median(index_ms), statistics.median(grep_ms)
    return {
        "search_ms_median": round(index_median, 3),
        "search_ms_p95": round(p95(index_ms), 3),
        "grep_ms_median": round(grep_median, 2),
        "grep_ms_p95": round(p95(grep_ms), 2),
        "grep_over_index_median": round(grep_median / index_median, 1),
        "grep_over_index_p95": round(p95(grep_ms) / p95(index_ms), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=30)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hearth-bench-files-") as scratch:
        root = Path(scratch) / "corpus"
        made, words, weights = generate(root, options.files)
        index = FileIndex(Path(scratch) / "index.sqlite3")
        with TextExtractor(workers=max(2, (os.cpu_count() or 2) // 2)) as extractor:
            started = time.perf_counter()
            result = Scanner(index, extractor).scan(root)
            index_seconds = time.perf_counter() - started
        rng = random.Random(11)
        # One file by a word only it holds, and words drawn as often as they occur in the text.
        unique = [f"marker{rng.randrange(options.files):05d}" for _ in range(options.queries)]
        common = rng.choices(words, cum_weights=weights, k=options.queries)
        unique_ms, unique_grep = measure(unique, index, root)
        common_ms, common_grep = measure(common, index, root)
        index.close()
    report = {
        "files": options.files,
        "kinds": made,
        "indexed": result.indexed,
        "skipped": result.skipped,
        "index_seconds": round(index_seconds, 2),
        "index_files_per_second": round(result.seen / index_seconds, 1),
        "grep_tool": grep_command("x", Path())[0],
        "all_queries": latency(unique_ms + common_ms, unique_grep + common_grep),
        "unique_word_queries": latency(unique_ms, unique_grep),
        "frequent_word_queries": latency(common_ms, common_grep),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
