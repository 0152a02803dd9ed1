"""When pydantic builds its models in memstream's own processes: when first used.

Importing lancedb defines the ~200 pydantic models of its REST namespace client, which
memstream never uses; pydantic builds each model's validator where the class is defined,
0.4 s of CPU in every process that opens the store (a worker, an API child, a replay's
writers, a command answered in its process). :func:`build_models_when_used` makes
pydantic defer that work to a model's first validation (pydantic's ``defer_build``, as
the default of every model), so a model never used is never built. Called first thing
by memstream's own entry points and children; never on import, so an application that
imports memstream's client keeps pydantic's defaults.

``pydantic._internal._config.config_defaults`` is pydantic's table of those defaults;
when a release moves it, nothing is deferred and nothing else changes.
"""

from __future__ import annotations

__all__ = ["build_models_when_used"]


def build_models_when_used() -> None:
    """Make every pydantic model of this process built on its first validation."""
    try:
        from pydantic._internal import _config
    except ImportError:
        return
    defaults = getattr(_config, "config_defaults", None)
    if isinstance(defaults, dict) and "defer_build" in defaults:
        defaults["defer_build"] = True
