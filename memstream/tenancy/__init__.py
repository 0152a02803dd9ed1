"""Who may reach whose memory: API keys bound to tenants (:mod:`.keys`), per-key rate
limits (:mod:`.limits`) and the audit log of changes (:mod:`.audit`)."""

__all__ = ["audit", "keys", "limits"]
