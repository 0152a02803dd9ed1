"""``python -m memstream``: the same as the ``memstream`` command."""

from memstream.cli import main

__all__: list[str] = []

if __name__ == "__main__":  # not when a replay worker process imports it as __mp_main__
    main()
