"""The audit log written out for people: JSON, or CSV that is safe to open in a spreadsheet.

Every string in it, keys and arguments included, is written as `hearth.shown` shows it: arguments,
results and taint sources quote outside text, and an export is read in viewers, terminals and
spreadsheets. The exact values stay in the audit log itself.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from typing import Any, Protocol, TextIO

from hearth.display import shown_data

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class Recorded(Protocol):
    """An audit entry as the export needs it, so the log and its export do not import each other."""

    def as_record(self) -> dict[str, Any]: ...


def write_json(fp: TextIO, entries: Sequence[Recorded]) -> None:
    records = [dumps(shown_data(entry.as_record())) for entry in entries]
    fp.write("[\n" + ",\n".join(records) + "\n]\n" if records else "[]\n")


def write_csv(fp: TextIO, entries: Sequence[Recorded], fields: Sequence[str]) -> None:
    writer = csv.writer(fp)
    writer.writerow(fields)
    for entry in entries:
        record = entry.as_record()
        cells = [shown_data(record[name]) for name in fields]
        writer.writerow([_csv_cell(cell) for cell in cells])


def _csv_cell(value: object) -> object:
    if isinstance(value, dict | list):
        return dumps(value)
    # Arguments and summaries can come from untrusted mail or web text; a leading = + - @
    # would run as a formula when the export is opened in a spreadsheet.
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return "" if value is None else value


def dumps(data: object) -> str:
    # default=str: an argument JSON cannot encode must still be recorded, never lost.
    return json.dumps(data, ensure_ascii=False, default=str)
