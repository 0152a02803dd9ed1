"""The projector: batches of raw log records applied to the projections, the core of
the worker. :mod:`.spine` applies and commits a batch (with its checkpoints); the
moves of archiving (:mod:`.archive_moves`), erasure (:mod:`.erasure`) and table upkeep
(:mod:`.upkeep`) are mixins over :mod:`.core`, the state they share; the checkpoints
and watermarks are :mod:`memstream.streams.delivery.bookkeeping`. What a batch changes
is worked out first, without storage, in :mod:`memstream.streams.batches`.

``Projector`` and the batch types are lifted here, loaded on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memstream.streams.batches import BatchResult, DeadLetter, PreparedBatch, prepare_batch
    from memstream.streams.projector.core import WINDOW_GRACE_SECONDS, is_data_error
    from memstream.streams.projector.spine import Projector

#: The module that defines each name of ``__all__``.
_HOMES = {
    "Projector": "memstream.streams.projector.spine",
    "WINDOW_GRACE_SECONDS": "memstream.streams.projector.core",
    "is_data_error": "memstream.streams.projector.core",
    "BatchResult": "memstream.streams.batches",
    "DeadLetter": "memstream.streams.batches",
    "PreparedBatch": "memstream.streams.batches",
    "prepare_batch": "memstream.streams.batches",
}

__all__ = [
    "WINDOW_GRACE_SECONDS",
    "BatchResult",
    "DeadLetter",
    "PreparedBatch",
    "Projector",
    "is_data_error",
    "prepare_batch",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
