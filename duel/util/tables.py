"""Tables from rows: markdown for reports, CSV for spreadsheets. Rows are dicts; the columns are
the first row's keys unless given, so no caller counts its columns by hand."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None,
             align: Mapping[str, str] | None = None) -> str:
    """A markdown table; `align` maps a column to "right" (numbers) or "left"."""
    if not rows and not columns:
        return ""
    cols = list(columns if columns is not None else rows[0].keys())
    rule = ["---:" if (align or {}).get(c) == "right" else "---" for c in cols]
    lines = ["| " + " | ".join(_cell(c) for c in cols) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(_cell(r.get(c, "")) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def csv_text(rows: Iterable[Mapping[str, Any]], columns: Sequence[str] | None = None) -> str:
    """CSV text (a header line, then one line per row)."""
    rows = list(rows)
    out = io.StringIO()
    cols = list(columns if columns is not None else (rows[0].keys() if rows else []))
    writer = csv.DictWriter(out, fieldnames=cols, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
