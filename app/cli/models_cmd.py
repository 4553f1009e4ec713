"""`hearth models`: list, download, import and verify the models Hearth can run."""

from __future__ import annotations

import concurrent.futures
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import click

from hearth import (
    MAX_THREADS,
    CatalogEntry,
    DownloadCancelled,
    DownloadProgress,
    HearthError,
    InstalledModel,
    ModelError,
    ModelNotFoundError,
    Models,
    ModelUnavailable,
    counted,
    shown,
)
from hearth.cli.prompt_cmd import prompt_command

_REDRAW_S = 0.2
_SOURCE_LABELS = {"user": "yes", "bundled": "yes (bundled)", "package": "yes (pip package)"}


@click.group("models")
def models() -> None:
    """List, download, import and check the models Hearth can run."""


models.add_command(prompt_command)


@models.command("list")
def list_command() -> None:
    """Show the catalog and every installed model; * marks the recommended one."""
    library = Models()
    catalog = library.catalog()
    installed = library.installed()
    by_id = {model.entry.id: model for model in installed if model.entry is not None}
    rows: list[tuple[str, ...]] = [("", "MODEL", "QUANT", "SIZE", "INSTALLED", "LICENSE")]
    for entry in catalog:
        rows.append(_entry_row(entry, by_id.get(entry.id)))
    for model in installed:
        if model.entry is None:
            size = _megabytes(model.path.stat().st_size)
            quant = library.quantization(model.path)
            rows.append(("", shown(model.path.name), shown(quant), size, _where(model), "-"))
    _echo_table(rows)
    click.echo(f"\n* recommended.  Models folder: {shown(str(library.folder()))}")


def _entry_row(entry: CatalogEntry, model: InstalledModel | None) -> tuple[str, ...]:
    size = _megabytes(model.path.stat().st_size) if model else f"~{_megabytes(entry.size)}"
    marker = "*" if entry.default else ""
    return (marker, entry.id, entry.quant, size, _where(model), entry.license)


def _where(model: InstalledModel | None) -> str:
    return _SOURCE_LABELS[model.source] if model else "no"


def _megabytes(size: int) -> str:
    return f"{size / 1e6:,.0f} MB"


def _echo_table(rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        cells = (cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        click.echo("  ".join(cells).rstrip())


@models.command("download")
@click.argument("model_id")
def download_command(model_id: str) -> None:
    """Download a catalog model from the Hugging Face Hub (Ctrl-C pauses; rerun to resume)."""
    library = Models()
    entry = library.catalog().get(model_id)
    shipped = library.shipped(entry)
    if shipped is not None:
        click.echo(
            f"{entry.id} is already available: it comes with the Python package"
            f" {entry.package}, at {shown(str(shipped))}"
        )
        return
    cancel = threading.Event()
    line = ProgressLine()
    try:
        path = run_interruptibly(
            lambda: library.download(entry, progress=line, cancel=cancel), cancel
        )
    except ModelUnavailable as exc:
        line.finish()
        click.echo(shown(str(exc)), err=True)  # one sentence that names the fallback to download
        sys.exit(1)
    except DownloadCancelled:
        line.finish()
        click.echo(
            f"Download cancelled. Run `hearth models download {model_id}` again to resume"
            " where it stopped.",
            err=True,
        )
        sys.exit(130)
    line.finish()
    click.echo(f"Installed {entry.id}: {shown(str(path))}")


def run_interruptibly(work: Callable[[], Path], cancel: threading.Event) -> Path:
    """Run `work` on a worker thread so Ctrl-C becomes a clean cancel, not a torn write.

    Ctrl-C may land anywhere, even while the worker is being started: once `work` has begun, it
    sets `cancel` and what `work` then returns or raises (a DownloadCancelled) comes back; before
    that, the work never begins and the KeyboardInterrupt goes on.
    """
    outcome: concurrent.futures.Future[Path] = concurrent.futures.Future()
    worker = threading.Thread(target=_fill, args=(outcome, work), name="hearth-download")
    while not outcome.done():
        try:
            if worker.ident is None:
                worker.start()
            concurrent.futures.wait([outcome], timeout=0.1)
        except KeyboardInterrupt:
            if outcome.cancel():
                raise  # `work` had not begun, and now never will
            cancel.set()
        except BaseException:
            cancel.set()  # the worker must stop before we leave
            raise
    worker.join()
    return outcome.result()


def _fill(outcome: concurrent.futures.Future[Path], work: Callable[[], Path]) -> None:
    if not outcome.set_running_or_notify_cancel():
        return
    try:
        outcome.set_result(work())
    except BaseException as error:  # handed to the waiting thread, which re-raises it
        outcome.set_exception(error)


class ProgressLine:
    """Redraws one stderr line with percent, MB done, speed and ETA."""

    def __init__(self) -> None:
        self.drawn_at = 0.0
        self.drawn = False

    def __call__(self, progress: DownloadProgress) -> None:
        now = time.monotonic()
        finished = progress.bytes_done >= progress.bytes_total
        if now - self.drawn_at < _REDRAW_S and not finished:
            return
        self.drawn_at, self.drawn = now, True
        click.echo(f"\r{format_progress(progress)}", nl=False, err=True)

    def finish(self) -> None:
        if self.drawn:
            click.echo("", err=True)


def format_progress(progress: DownloadProgress) -> str:
    """One progress line: `42.0%  350.1/834.2 MB  11.3 MB/s  ETA 0:43`."""
    eta = "--:--" if progress.eta is None else _clock(progress.eta)
    return (
        f"{progress.fraction:6.1%}  {progress.bytes_done / 1e6:,.1f}/"
        f"{progress.bytes_total / 1e6:,.1f} MB  {progress.speed / 1e6:5.1f} MB/s  ETA {eta}"
    )


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@models.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def import_command(file: Path) -> None:
    """Check a GGUF file you already have and copy it into Hearth's models folder."""
    path = Models().import_file(file)
    click.echo(f"Imported {shown(file.name)}: {shown(str(path))}")


@models.command("verify")
@click.argument("target", required=False)
def verify_command(target: str | None) -> None:
    """Check a model (catalog id or file), or every installed model, for damage."""
    library = Models()
    if target is not None:
        _verify_one(library, library.resolve(target))
        return
    installed = library.installed()
    if not installed:
        raise ModelNotFoundError("No model is installed, so there is nothing to verify.")
    failures = 0
    for model in installed:
        try:
            _verify_one(library, model.path)
        except HearthError as exc:
            failures += 1
            click.echo(f"FAILED  {shown(str(exc))}", err=True)
    if failures:
        raise ModelError(f"{failures} of {counted(len(installed), 'model')} failed verification.")


def _verify_one(library: Models, path: Path) -> None:
    summary = library.verify(path)
    recorded = library.install_record(path) is not None
    checked = "sha256 matches" if recorded else "no install record to hash against"
    # The architecture and quantization are read from the file's own header.
    details = f"{summary.architecture}, {summary.quantization or '?'}"
    click.echo(
        f"OK  {shown(str(path))}  ({shown(details)},"
        f" context {summary.context_length or '?'}, {checked})"
    )


@models.command("threads")
@click.argument("count", required=False, metavar="[N|auto]")
def threads_command(count: str | None) -> None:
    """Show or set how many CPU threads models use (auto: every core, one left for the window)."""
    library = Models()
    if count is not None:
        if count == "auto":
            library.save_threads(None)
        elif count.isdigit() and 1 <= int(count) <= MAX_THREADS:
            library.save_threads(int(count))
        else:
            raise click.BadParameter(
                f"give a number from 1 to {MAX_THREADS}, or auto", param_hint="N"
            )
    saved = library.saved_threads()
    if saved is None:
        click.echo(f"Automatic: {library.thread_policy().describe()}.")
    else:
        exactly = library.thread_policy().describe()
        click.echo(f"Exactly {exactly}; `hearth models threads auto` lets Hearth choose.")
