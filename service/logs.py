"""The server's log lines: as Python prints them (``text``, the default), or one JSON object per line.

``cardgames serve --log-format json`` writes every log record to stderr as one JSON object on
one line: ``time`` (UTC, ISO 8601 with milliseconds), ``level``, ``logger``, ``message``, the
process id, the record's own fields (``extra=``: an address, a store, a game id...) and, for a
failure, the exception as ``error`` (its traceback in one string). At INFO and above: the
serving and stopping lines come out too.
"""

from __future__ import annotations

import enum
import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any, Final, TextIO


class Format(enum.StrEnum):
    """How log lines are written."""

    text = "text"
    json = "json"


#: The attributes every LogRecord has: the others were given with ``extra=`` and are written as fields.
_STANDARD: Final = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """A record as one JSON object on one line (see the module's docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in line:
                line[key] = value
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["error"] = record.exc_text
        return json.dumps(line, default=str, ensure_ascii=False)


def configure(log_format: Format | str, stream: TextIO | None = None) -> None:
    """Set the process's log lines up: ``json`` (above), or ``text``, which leaves Python's as they are."""
    if Format(log_format) is Format.text:
        return
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
