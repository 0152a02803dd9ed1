"""A signpost, not a package: the code of the Kafka runtime is ``memstream.streams``
(memstream/streams/). Importing this folder fails, so that no module imports under two names."""

raise ImportError(
    "streams/ at the root of the repository is a signpost: "
    "import memstream.streams (memstream/streams/)"
)
