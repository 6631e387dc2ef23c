"""Room codes are private links and match ids lead to results: the access log shows only
their first characters."""

from __future__ import annotations

import logging
import re

_CODE_IN_PATH = re.compile(
    r"(/(?:r|t|api/rooms|api/tournaments|api/matches|ws/rooms)/)([A-Za-z0-9_-]{4})[A-Za-z0-9_-]+"
)


def mask_codes(text: str) -> str:
    return _CODE_IN_PATH.sub(r"\1\2…", text)


class MaskRoomCodes(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(mask_codes(a) if isinstance(a, str) else a for a in record.args)
        return True


def install() -> None:
    for name in ("uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, MaskRoomCodes) for f in logger.filters):
            logger.addFilter(MaskRoomCodes())
