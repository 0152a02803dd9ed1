"""The coding agents memstream's hooks run in, each as data: which of its hook events
does what, where its settings live and in what shape, how its input names the session,
the folder, the prompt and the answer, and what it reads on standard output.

One core (:mod:`.runner`) does the work for every host; a host here is only the
translation. The contracts followed:

- **Claude Code**: ``.claude/settings.json``; SessionStart and UserPromptSubmit inject
  (``hookSpecificOutput.additionalContext``); Stop, PreCompact and SessionEnd capture the
  transcript file.
- **Codex CLI**: ``.codex/hooks.json`` (the same shape, timeouts in seconds);
  SessionStart and UserPromptSubmit inject as Claude Code's do, the prompt is stored as
  it is submitted, and Stop stores ``last_assistant_message`` (``turn_id`` names the turn).
- **Gemini CLI**: ``.gemini/settings.json`` (timeouts in milliseconds); SessionStart and
  BeforeAgent inject (``hookSpecificOutput.additionalContext``), AfterAgent stores the
  turn (``prompt`` and ``prompt_response``), SessionEnd ends the session. It parses
  standard output as JSON, so a hook with nothing to say prints ``{}``.
- **Cursor**: ``.cursor/hooks.json`` (``{"version": 1, "hooks": {event: [{command}]}}``);
  beforeSubmitPrompt cannot add context (it answers ``{"continue": true}``), so the block
  goes into the rules file ``.cursor/rules/memstream.mdc`` of the workspace, which
  Cursor reads with each request; the prompt is stored as it is submitted,
  afterAgentResponse stores ``text``, sessionEnd ends the session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

__all__ = ["DEFAULT_HOST", "HOSTS", "Act", "Host", "Shape"]

#: The host ``memstream hook EVENT`` serves when none is named.
DEFAULT_HOST = "claude-code"


class Act(Enum):
    """What a hook event does."""

    INJECT_START = "inject what matters for the project"
    INJECT_PROMPT = "inject what bears on the prompt"
    WRITE_RULES = "write the block for the prompt into the rules file"
    CAPTURE_TRANSCRIPT = "publish the transcript's new turns"
    STORE_PROMPT = "publish the prompt"
    STORE_ANSWER = "publish the answer"
    END_SESSION = "end the session"


class Shape(Enum):
    """How a host's settings file lists hooks."""

    #: ``{"hooks": {Event: [{"hooks": [{"type": "command", "command", "timeout"}]}]}}``
    GROUPED = "grouped"
    #: ``{"version": 1, "hooks": {event: [{"command"}]}}``
    FLAT = "flat"


@dataclass(frozen=True)
class Host:
    """One coding agent's hook contract."""

    name: str
    #: its settings file, under the home folder or a project
    settings: str
    shape: Shape
    #: what each of its events does, in the order installed
    events: dict[str, tuple[Act, ...]]
    #: its name for the conversation and for the folder worked in
    session_field: str = "session_id"
    folder_field: str = "cwd"
    #: the field holding the answer of the turn, and the one naming the turn (without
    #: one, a turn is named by what was said in it)
    answer_field: str | None = None
    turn_field: str | None = None
    #: the timeout written for an injecting hook and a storing one, in the host's unit
    timeouts: tuple[int, int] | None = None
    #: whether its settings name each hook (``"name"``, shown in its logs)
    named_hooks: bool = False
    #: what it reads on standard output when the hook has nothing to say
    silence: str = ""
    #: what it must read on standard output after an event, whatever happened
    replies: dict[str, str] = field(default_factory=dict)
    #: the short names ``memstream hook NAME`` takes for its events
    aliases: dict[str, str] = field(default_factory=dict)
    #: the folders it keeps its transcripts in (``$VAR`` when that variable is set, ``~``
    #: the home folder): a transcript elsewhere is not read
    transcript_folders: tuple[str, ...] = ()


HOSTS: dict[str, Host] = {
    host.name: host
    for host in (
        Host(
            name="claude-code",
            settings=".claude/settings.json",
            shape=Shape.GROUPED,
            events={
                "SessionStart": (Act.INJECT_START,),
                "UserPromptSubmit": (Act.INJECT_PROMPT,),
                "Stop": (Act.CAPTURE_TRANSCRIPT,),
                "PreCompact": (Act.CAPTURE_TRANSCRIPT,),
                "SessionEnd": (Act.CAPTURE_TRANSCRIPT, Act.END_SESSION),
            },
            timeouts=(10, 60),
            transcript_folders=("$CLAUDE_CONFIG_DIR", "~/.claude"),
            aliases={
                "session-start": "SessionStart",
                "prompt": "UserPromptSubmit",
                "stop": "Stop",
                "pre-compact": "PreCompact",
                "session-end": "SessionEnd",
            },
        ),
        Host(
            name="codex",
            settings=".codex/hooks.json",
            shape=Shape.GROUPED,
            events={
                "SessionStart": (Act.INJECT_START,),
                "UserPromptSubmit": (Act.INJECT_PROMPT, Act.STORE_PROMPT),
                "Stop": (Act.STORE_ANSWER,),
            },
            answer_field="last_assistant_message",
            turn_field="turn_id",
            timeouts=(10, 30),
        ),
        Host(
            name="gemini",
            settings=".gemini/settings.json",
            shape=Shape.GROUPED,
            events={
                "SessionStart": (Act.INJECT_START,),
                "BeforeAgent": (Act.INJECT_PROMPT,),
                "AfterAgent": (Act.STORE_PROMPT, Act.STORE_ANSWER),
                "SessionEnd": (Act.END_SESSION,),
            },
            answer_field="prompt_response",
            timeouts=(10_000, 30_000),
            named_hooks=True,
            silence="{}",
        ),
        Host(
            name="cursor",
            settings=".cursor/hooks.json",
            shape=Shape.FLAT,
            events={
                "beforeSubmitPrompt": (Act.WRITE_RULES, Act.STORE_PROMPT),
                "afterAgentResponse": (Act.STORE_ANSWER,),
                "sessionEnd": (Act.END_SESSION,),
            },
            session_field="conversation_id",
            folder_field="workspace_roots",
            answer_field="text",
            turn_field="generation_id",
            silence="{}",
            replies={"beforeSubmitPrompt": '{"continue": true}'},
        ),
    )
}
