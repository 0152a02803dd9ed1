"""Coding-agent hooks: ``memstream hook EVENT`` injects context and captures transcripts
(:mod:`.runner`), ``memstream hook install claude-code`` writes the agent's settings
(:mod:`.install`), and :mod:`.transcripts` reads a transcript into message events."""

__all__ = ["install", "runner", "transcripts"]
