"""A signpost, not a package: the code of the folds from events to rows is ``memstream.projections``
(memstream/projections/). Importing this folder fails, so that no module imports under two names."""

raise ImportError(
    "projections/ at the root of the repository is a signpost: "
    "import memstream.projections (memstream/projections/)"
)
