"""projections package."""
