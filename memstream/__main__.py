"""``python -m memstream``: the same as the ``memstream`` command."""

from memstream.cli import main

main()
