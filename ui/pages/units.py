"""Numbers and times as people read them: sizes, speeds, durations, "5 min ago"."""

from __future__ import annotations

import time
from datetime import datetime

_SIZE_UNITS = ("bytes", "kB", "MB", "GB", "TB")
_MINUTE = 60
_HOUR = 60 * _MINUTE
_DAY = 24 * _HOUR


def file_size(size: float) -> str:
    """Decimal units, as disks and download sites count: 870 MB, 1.6 GB."""
    value, unit = float(size), 0
    while value >= 1000 and unit < len(_SIZE_UNITS) - 1:
        value, unit = value / 1000, unit + 1
    if unit == 0:
        return "1 byte" if int(value) == 1 else f"{int(value)} bytes"
    digits = 0 if value >= 100 else 1
    return f"{value:.{digits}f} {_SIZE_UNITS[unit]}"


def percent(fraction: float) -> str:
    """Rounded down, as progress bars show it: 99.6 % done is not yet "100%"."""
    return f"{int(max(0.0, min(fraction, 1.0)) * 100)}%"


def speed(bytes_per_second: float) -> str:
    return f"{file_size(bytes_per_second)}/s"


def duration(seconds: float) -> str:
    """A rounded span: "12 s", "3 min 20 s", "1 h 5 min"."""
    whole = max(0, round(seconds))
    if whole < _MINUTE:
        return f"{whole} s"
    if whole < 10 * _MINUTE:
        minutes, rest = divmod(whole, _MINUTE)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    if whole < _HOUR:
        return f"{round(whole / _MINUTE)} min"
    hours, rest = divmod(whole, _HOUR)
    minutes = round(rest / _MINUTE)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def relative_time(moment: float, now: float | None = None) -> str:
    """ "just now", "5 min ago", "in 42 min", or a date once it is more than a day away."""
    now = time.time() if now is None else now
    delta = moment - now
    if abs(delta) < 45:
        return "just now"
    if abs(delta) >= _DAY:
        return local_time(moment, with_date=True)
    span = _coarse_span(abs(delta))
    return f"in {span}" if delta > 0 else f"{span} ago"


def _coarse_span(seconds: float) -> str:
    if seconds < _HOUR:
        return f"{max(1, round(seconds / _MINUTE))} min"
    return f"{round(seconds / _HOUR)} h"


def local_time(moment: float | datetime, *, with_date: bool = True) -> str:
    """A timestamp in the user's time zone: "2025-11-29 19:20" or just "19:20"."""
    when = moment if isinstance(moment, datetime) else datetime.fromtimestamp(moment)
    local = when.astimezone()
    return local.strftime("%Y-%m-%d %H:%M" if with_date else "%H:%M")
