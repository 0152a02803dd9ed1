"""A signpost, not a package: the code of where memstream keeps data is ``memstream.storage``
(memstream/storage/). Importing this folder fails, so that no module imports under two names."""

raise ImportError(
    "storage/ at the root of the repository is a signpost: "
    "import memstream.storage (memstream/storage/)"
)
