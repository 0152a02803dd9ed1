"""Coding-agent hooks, one core for every host: ``memstream hook [--host HOST] EVENT``
injects context and captures the conversation (:mod:`.runner`), :mod:`.hosts` holds
each host's contract (Claude Code, Codex CLI, Gemini CLI, Cursor), :mod:`.turns` reads a
host's input into events and :mod:`.transcripts` a Claude Code transcript, and
``memstream hook install HOST`` writes the host's settings (:mod:`.install`), naming the
memstream it found answering (:mod:`.reach`); every file
either writes goes through :mod:`.files` (no link followed), and :mod:`.errors` holds the
hooks' one root exception."""

__all__ = ["errors", "files", "hosts", "install", "reach", "runner", "transcripts", "turns"]
