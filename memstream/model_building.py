"""What memstream's own processes leave undone until it is used: pydantic's building of
a model, and lancedb's REST namespace client.

Importing lancedb imports ``lance_namespace_urllib3_client``, the REST client of Lance
namespaces, which memstream never uses: its package loads nine API classes and defines
~200 pydantic models, and pydantic builds each model's validator where the class is
defined. :func:`build_models_when_used` makes pydantic defer that work to a model's
first validation (pydantic's ``defer_build``, as the default of every model), so a model
never used is never built; and it has the REST client's package load its own modules
(its API classes, configuration, API client) only when one of its names is first asked
for, so importing lancedb loads the models lancedb names and nothing more. Together they
take lancedb's import from 1.2 s of CPU to 0.6 s in every process that opens the store
(a worker, an API child, a replay's writers, a command answered in its process).

Called first thing by memstream's own entry points and children; never on import, so an
application that imports memstream's client keeps pydantic's and lancedb's defaults.

``pydantic._internal._config.config_defaults`` is pydantic's table of those defaults;
when a release moves it, nothing is deferred and nothing else changes. The REST
client's package is left alone when it is loaded already or not installed.
"""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["REST_CLIENT", "build_models_when_used"]

#: The package of lancedb's REST namespace client.
REST_CLIENT = "lance_namespace_urllib3_client"


def build_models_when_used() -> None:
    """Make every pydantic model of this process built on its first validation, and
    lancedb's REST client loaded when it is first used."""
    try:
        from pydantic._internal import _config
    except ImportError:
        pass
    else:
        defaults = getattr(_config, "config_defaults", None)
        if isinstance(defaults, dict) and "defer_build" in defaults:
            defaults["defer_build"] = True
    _load_when_used(REST_CLIENT)


def _load_when_used(name: str) -> None:
    """Put package ``name`` in ``sys.modules`` without running its ``__init__``: its
    submodules import as ever (its ``__path__`` is set), and the first look-up of one of
    its own names runs the ``__init__`` then, in the same module object."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    package = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def load_and_get(attribute: str) -> object:
        package.__dict__.pop("__getattr__", None)
        loader.exec_module(package)
        return getattr(package, attribute)

    package.__dict__["__getattr__"] = load_and_get
    sys.modules[name] = package
