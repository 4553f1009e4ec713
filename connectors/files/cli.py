"""`hearth files`: grant and revoke folders, index them, search, from the terminal.

The commands are plain definitions; `files_commands(library)` puts them in a group whose
context carries the library, which each command receives with `@click.pass_obj`. Paths, names
and snippets are printed with `names.shown`, so none can drive the terminal or read reversed.
"""

from __future__ import annotations

from pathlib import Path

import click

from hearth import counted
from hearth.connectors.files.errors import FilesError
from hearth.connectors.files.fsops import Grant
from hearth.connectors.files.index import Query
from hearth.connectors.files.library import FileLibrary
from hearth.connectors.files.names import shown

SKIPPED_SHOWN = 20


def files_commands(library: FileLibrary) -> click.Group:
    """`hearth files` working on `library`."""
    return click.Group(
        "files",
        commands=[grant, revoke, list_folders, index, search],
        help="Folders Hearth may see, and their search index.",
        context_settings={"obj": library},
    )


@click.command("grant")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--no-index", is_flag=True, help="Only grant; index the next time Hearth runs.")
@click.pass_obj
def grant(library: FileLibrary, folder: Path, no_index: bool) -> None:
    """Let Hearth see FOLDER and everything in it, then index it."""
    root = library.grant(folder.absolute())
    click.echo(f"Granted {shown(str(root))}")
    if not no_index:
        for pinned in library.current():
            if pinned.path == root:
                _index(library, pinned)


@click.command("revoke")
@click.argument("folder", type=click.Path(path_type=Path))
@click.pass_obj
def revoke(library: FileLibrary, folder: Path) -> None:
    """Stop Hearth seeing FOLDER; its entries leave the index."""
    library.revoke(folder.absolute())
    click.echo(f"Revoked {shown(str(folder))}")


@click.command("list")
@click.pass_obj
def list_folders(library: FileLibrary) -> None:
    """Show the granted folders and how many entries each has in the index."""
    roots = library.roots()
    if not roots:
        click.echo("No folders granted yet. Grant one with:  hearth files grant ~/Documents")
    for root in roots:
        click.echo(f"{shown(str(root))}  ({library.indexed_count(root)} indexed)")


@click.command("index")
@click.pass_obj
def index(library: FileLibrary) -> None:
    """Bring the index up to date with every granted folder now."""
    for grant in library.current():
        _index(library, grant)


@click.command("search")
@click.argument("words", nargs=-1, required=True)
@click.option("--kind", type=click.Choice(["txt", "md", "pdf", "docx", "other", "folder"]))
@click.option("--limit", type=click.IntRange(1, 200), default=20, show_default=True)
@click.pass_obj
def search(library: FileLibrary, words: tuple[str, ...], kind: str | None, limit: int) -> None:
    """Search names and text in the granted folders."""
    try:
        hits = library.index.search(Query(" ".join(words), kind=kind, limit=limit), library.roots())
    except FilesError as error:
        raise click.ClickException(str(error)) from None
    if not hits:
        click.echo("No matches.")
    for hit in hits:
        click.echo(shown(str(hit.path)))
        if hit.snippet:
            click.secho(f"    {shown(hit.snippet)}", dim=True)


def _index(library: FileLibrary, grant: Grant) -> None:
    label = f"Indexing {shown(str(grant.path))}"
    with click.progressbar(length=1, label=label, file=None) as bar:

        def progress(done: int, total: int) -> None:
            bar.length = max(total, 1)
            bar.update(done - bar.pos)

        result = library.scanner.scan(grant, progress)
    # Skipped entries are told from the index, so a grant and any later index say the same.
    skipped = library.index.count_skipped(grant.path)
    click.echo(
        f"{counted(result.seen, 'entry', 'entries')}, {result.indexed} read, "
        f"{result.removed} removed, {skipped} skipped"
    )
    named = library.index.skipped(grant.path, limit=SKIPPED_SHOWN)
    for entry in named:
        where, why = shown(str(entry.path)), shown(entry.skipped or "")
        click.secho(f"skipped: {where}: {why}", dim=True, err=True)
    if skipped > len(named):
        click.secho(f"and {skipped - len(named)} more skipped", dim=True, err=True)
