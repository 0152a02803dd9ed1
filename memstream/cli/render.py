"""How the command line prints what an operation answered (plain text for people;
``--json`` output is the operation's own document).

Plain text shows times to the minute in UTC (``2024-05-01 10:00``), memory ids in their
short form (``ep-1a2b3c4d``, which every command taking an id accepts back), and leaves
out what is unknown rather than printing ``None``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memstream.events.short_ids import short_id
from memstream.text.passages import marked_cut

if TYPE_CHECKING:
    from memstream.application.transfer import ImportReport
    from memstream.events.vocabulary import Event
    from memstream.policies.coldness import ColdDecision
    from memstream.streams.publisher import CheckedLine

__all__ = [
    "archived",
    "cold_decisions",
    "decision",
    "decisions",
    "document",
    "documents",
    "entity",
    "erasure",
    "events_json",
    "freshness",
    "history",
    "imported",
    "keys_table",
    "memory_page",
    "published",
    "search_results",
    "served",
    "served_answer",
    "stats",
    "users",
    "weak_facts",
    "when",
    "why",
]


def published(checked: Sequence[CheckedLine]) -> str:
    accepted = sum(1 for c in checked if c.event is not None)
    lines = [f"accepted {accepted} of {len(checked)}"]
    for line in checked:
        if line.event is None:
            where = "sent to memory.dlq" if line.sendable else "not sent"
            lines.append(f"line {line.number}: rejected ({where}): {'; '.join(line.problems)}")
    return "\n".join(lines)


def search_results(found: Mapping[str, Any], min_similarity: float | None = None) -> str:
    """A line per result of a search's answer (the API's JSON; a long turn shows the
    passage it was found by); when nothing is left, whether nothing was found or
    nothing reached the floor."""
    if not found["results"]:
        if min_similarity is not None:
            return f"nothing relevant: no memory reaches similarity {min_similarity:g}"
        return "no results"
    lines = []
    for rank, r in enumerate(found["results"], start=1):
        who = _who(r)
        cold = " (archived)" if r.get("archived") else ""
        cited = f"  [{r['document']['citation']}]" if r.get("document") else ""
        fields = [
            f"{rank:>3}.",
            f"{r['score']:.3f}",
            when(r["occurred_at"]),
            short_id(r["memory_id"]),
        ]
        lines.append("  ".join(fields) + f"  {who}{_shown(r)}{cold}{cited}")
    return "\n".join(lines)


def freshness(found: Mapping[str, Any] | None) -> str | None:
    """A line saying what an answer does not reflect yet (None: nothing, or not said)."""
    if not found:
        return None
    behind = []
    writes, vectors = found.get("pending_writes"), found.get("pending_vectors")
    if writes:
        behind.append(f"{writes} accepted write{'' if writes == 1 else 's'} not applied yet")
    if vectors:
        waits = "memory waits" if vectors == 1 else "memories wait"
        behind.append(f"{vectors} {waits} for a vector (found by words only)")
    return "not fresh: " + "; ".join(behind) if behind else None


def _who(result: Mapping[str, Any]) -> str:
    """Who said a result, as a line opens with it: its speaker's name, or "assistant"
    for an assistant's turn published without one; nothing for the rest."""
    said_by = result.get("speaker") or ("assistant" if result.get("role") == "assistant" else None)
    return f"{said_by}: " if said_by else ""


def _shown(result: Mapping[str, Any]) -> str:
    """A result's content, or for a long turn found by a passage, that passage."""
    span = result.get("passage")
    if span is None:
        return str(result["content"])
    return " ".join(marked_cut(result["content"], span["start"], span["end"]).split())


def memory_page(page: Mapping[str, Any], following: bool = False) -> str:
    """A page of a user's memories, a line each, and how to ask for the next page."""
    lines = []
    for m in page["memories"]:
        who = f"{m['speaker']}: " if m.get("speaker") else ""
        marks = [mark for mark in ("archived",) if m.get("archived")]
        if m.get("state", "current") != "current":
            marks.append(m["state"])
        shown = f" ({', '.join(marks)})" if marks else ""
        fields = [when(m["occurred_at"]), f"{m['kind']:<10}", short_id(m["memory_id"])]
        lines.append("  ".join(fields) + f"  {who}{m['content']}{shown}")
    if not lines:
        lines.append("no memories")
    if page.get("next_cursor") and not following:
        lines.append(f"more: --cursor {page['next_cursor']}")
    return "\n".join(lines)


def document(shown: Mapping[str, Any]) -> str:
    """A document's status in a line (and why, when it failed)."""
    titled = f" ({shown['title']})" if shown["title"] != shown["document_id"] else ""
    line = (
        f"{shown['document_id']}{titled}: {shown['status']}, version "
        f"{shown['version']}, {shown['chunks']} of {shown['total_chunks']} chunks"
    )
    if "embedded_chunks" in shown and shown["chunks"]:
        line += f" ({shown['embedded_chunks']} with their vector)"
    if shown.get("facts"):
        line += f", {shown['facts']} facts"
    if shown.get("pages"):
        line += f", {shown['pages']} pages"
    error = shown.get("error")
    if error:
        line += f"\n  {error['class']}: {error['message']}"
    if shown.get("facts_error"):
        line += f"\n  no facts: {shown['facts_error']}"
    return line


def documents(found: Sequence[Mapping[str, Any]]) -> str:
    if not found:
        return "no documents"
    return "\n".join(document(shown) for shown in found)


def when(value: datetime | str | None) -> str:
    """A time as plain output shows it: to the minute, in UTC (``-`` when unknown)."""
    if value is None or value == "":
        return "-"
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M")


def events_json(events: Sequence[Event]) -> str:
    """Events as the codec writes them, in one indented JSON array."""
    from memstream.events.codec import encode

    return json.dumps([json.loads(encode(e)) for e in events], indent=2, ensure_ascii=False)


def decisions(events: Sequence[Event]) -> str:
    return "\n".join(decision(e) for e in events)


def decision(event: Event) -> str:
    """One or more lines saying what a lifecycle event decided."""
    from memstream.events.codec import encode
    from memstream.events.vocabulary import (
        ConfidenceDecayed,
        FactsConsolidated,
        MemoryPruned,
        ReflectionWritten,
        SessionClosed,
    )

    if isinstance(event, SessionClosed):
        return (
            f"session {event.user_id}/{event.session_id} closed ({event.reason}) "
            f"through {event.through.isoformat()}"
        )
    if isinstance(event, FactsConsolidated):
        lines = [
            f"session {event.user_id}/{event.session_id}: {len(event.memories)} memories "
            f"({event.extractor})"
        ]
        lines += [f"  + [{m.kind}] {m.content} ({m.confidence:.2f})" for m in event.memories]
        return "\n".join(lines)
    if isinstance(event, ConfidenceDecayed):
        lines = [f"{event.user_id}: {len(event.updates)} confidences as of {event.as_of}"]
        lines += [f"  {u.memory_id} -> {u.confidence:.6f}" for u in event.updates]
        return "\n".join(lines)
    if isinstance(event, MemoryPruned):
        return f"{event.user_id}: pruned {', '.join(event.memory_ids)}"
    if isinstance(event, ReflectionWritten):
        return f"{event.user_id}: reflection\n{event.memory.content}"
    return encode(event).decode()


def weak_facts(weak: Sequence[Mapping[str, Any]]) -> str:
    return "\n".join(
        f"{w['confidence']:.4f} {w['kind']:<10} {short_id(w['memory_id'])}" for w in weak
    )


def cold_decisions(found: Sequence[ColdDecision]) -> str:
    return "\n".join(
        f"{d.user_id} {short_id(d.memory_id)} idle {d.idle_days:.1f} d hotness "
        f"{d.hotness:.4f}: {d.reason}"
        for d in found
    )


def archived(events: Sequence[Event]) -> str:
    """The memories an archive run moved to cold storage, one line each."""
    from memstream.events.vocabulary import MemoryArchived

    return "\n".join(
        f"{e.user_id} {short_id(e.memory_id)} -> {e.storage_ref} ({e.reason})"
        for e in events
        if isinstance(e, MemoryArchived)
    )


def history(chain: Sequence[Mapping[str, Any]]) -> str:
    lines = []
    for m in chain:
        status = "current"
        if m["superseded_by"]:
            status = f"superseded by {short_id(m['superseded_by'])}"
            if m.get("superseded_at"):
                status += f" on {when(m['superseded_at'])}"
            status += f", held until {when(m['valid_until'])}"
        if m["forgotten_at"]:
            status = f"{m['forgotten_reason'] or 'forgotten'} {when(m['forgotten_at'])}"
        lines.append(
            f"{when(m['occurred_at'])}  {short_id(m['memory_id'])}  [{m['kind']}] "
            f"{m['content']} ({status})"
        )
    return "\n".join(lines)


def entity(profile: Mapping[str, Any]) -> str:
    lines = [
        f"{profile['name']} ({profile['type']}), {profile['mention_count']} mentions",
        f"  aliases: {', '.join(profile['aliases'])}",
        f"  seen: {when(profile['first_seen'])} .. {when(profile['last_seen'])}",
    ]
    lines += [f"  {item['month']}: {item['memories']} memories" for item in profile["timeline"]]
    lines += [
        f"  - {when(m['occurred_at'])}  {short_id(m['memory_id'])}  "
        + (f"{m['speaker']}: " if m.get("speaker") else "")
        + m["content"][:100]
        for m in profile["memories"]
    ]
    return "\n".join(lines)


def users(document: Mapping[str, Any]) -> str:
    """The users memory is held of, a line each: memories, archived, last activity."""

    rows = document["users"]
    if not rows:
        return "no users: no memory is held yet"
    width = max(len(u["user_id"]) for u in rows)
    lines = [
        f"{u['user_id']:<{width}}  {u['memories']:>7} memories  {u['archived']:>6} archived"
        f"  last {when(u['last_at'])}"
        for u in rows
    ]
    return "\n".join([*lines, f"{len(rows)} users"])


def served(document: Mapping[str, Any]) -> str:
    """What agents were shown, an answer a line: when, to whom, what, how many memories."""
    rows = document["served"]
    if not rows:
        return "nothing served: no agent was given an answer of this memory yet"
    lines = [
        f"{when(a['served_at'])}  {a['served_id']}  {a['agent'] or '-'}"
        f"{' (' + a['session_id'] + ')' if a['session_id'] else ''} via {a['door']}: "
        f"{a['answer']} of {len(a['lines'])} lines for {a['question']!r}"
        for a in rows
    ]
    return "\n".join(lines)


def served_answer(document: Mapping[str, Any]) -> str:
    """One served answer: who asked what, and its text as rendered again."""
    rebuilt = document["rebuilt"]
    verdict = (
        "rendered again byte for byte (same digest)"
        if rebuilt["matches"]
        else "rendered again, but the digest differs"
        + (f": no memory found for {', '.join(rebuilt['missing'])}" if rebuilt["missing"] else "")
    )
    head = (
        f"{document['answer']} served {when(document['served_at'])} to "
        f"{document['agent'] or 'an unnamed agent'} via {document['door']}\n"
        f"question: {document['question']}\n{verdict}"
    )
    return f"{head}\n\n{rebuilt['text'] or ''}"


def stats(document: Mapping[str, Any]) -> str:
    lines = [
        f"{kind:>14}: {count}" for kind, count in document["memories"].items() or [("memories", 0)]
    ]
    lines += [
        f"        hidden: {document.get('hidden', 0)} (superseded, forgotten, removed)",
        f"      archived: {document['archived']}",
        f"      entities: {document['entities']}",
        f" embedding lag: {document['embedding_lag']}",
        f"  dead letters: {document['dead_letters']}",
    ]
    if "lag" in document:  # the deployment's, or the user's partition's
        lag = document["lag"]
        lines.append(f"           lag: {'unknown (broker unreachable)' if lag is None else lag}")
    elif document.get("user_id"):
        lines.append("           lag: unknown (broker unreachable)")
    return "\n".join(lines)


def why(explained: Mapping[str, Any]) -> str:
    """An explanation (``memstream explain``) as a few readable lines."""
    memory = explained["memory"]
    lines = [
        f"{short_id(memory['memory_id'])} [{memory['kind']}] {memory['content']} "
        f"({when(memory['occurred_at'])})"
    ]
    for turn in explained["derived_from"]["turns"]:
        who = f"{turn['speaker']}: " if turn["speaker"] else ""
        lines.append(f"  from {when(turn['occurred_at'])} {who}{turn['content']}")
    for source in explained["derived_from"]["memories"]:
        lines.append(f"  from [{source['kind']}] {source['content']}")
    if len(explained["history"]) > 1:
        lines.append("  history:")
        lines += [f"    {when(m['occurred_at'])} {m['content']}" for m in explained["history"]]
    commands = explained["commands"]
    if commands["confirmed"]:
        lines.append("  confirmed")
    if commands["forgotten_at"]:
        lines.append(
            f"  {commands['forgotten_reason'] or 'forgotten'} {when(commands['forgotten_at'])}"
        )
    if explained["entities"]:
        lines.append(f"  entities: {', '.join(explained['entities'])}")
    confidence = explained["confidence"]
    lines.append(f"  confidence now {confidence['now']:.3f}: {confidence['rule']}")
    return "\n".join(lines)


def erasure(document: Mapping[str, Any]) -> str:
    """What an erasure did, and whether it is finished."""
    keys = len(document["keys_destroyed"])
    if not document.get("held", True):
        return (
            f"memstream held nothing of {document['user_id']} (no memory, document or data "
            "key): nothing to erase"
        )
    if document["complete"]:
        said = (
            f"erased {document['user_id']}: {keys} data key(s) destroyed; no projection, "
            f"vector, entity or archived original of the user is left "
            f"({document['took_seconds']:.1f} s)"
        )
        receipt = document.get("receipt")
        if receipt:
            found = "nothing found" if receipt["nothing_found"] else "SOMETHING FOUND"
            said += (
                f"\nreceipt: {len(receipt['probes'])} read paths probed, {found}; signed by "
                f"the deployment's key {receipt['signature']['key_id']} (--json prints it; "
                "`memstream erase --verify FILE` checks it)"
            )
        return said
    return (
        f"erasing {document['user_id']}: {keys} data key(s) destroyed, so nothing sealed for "
        "the user opens any more; the worker has not dropped the user's rows yet (it does "
        "when it runs: `memstream erase` again waits for it)"
    )


def keys_table(document: Mapping[str, Any]) -> str:
    """One line per API key: id, tenant, role, name, created, revoked."""
    keys = document["keys"]
    if not keys:
        return "no API keys: the API serves on loopback only, without keys"
    return "\n".join(
        f"{k['key_id']}  {k['tenant']:<20} {k['role']:<6} created {k['created_at'][:19]}"
        + (f"  revoked {k['revoked_at'][:19]}" if k["revoked_at"] else "  active")
        + (f"  {k['name']}" if k["name"] else "")
        for k in keys
    )


def imported(report: ImportReport) -> str:
    """What an import did, and each entry it skipped (by position)."""

    lines = [
        f"imported {report.shape}: {report.published:,} events published"
        + (f", {report.originals} document originals stored" if report.originals else "")
        + (f"; {len(report.skipped) + report.more_skipped:,} entries skipped:"
           if report.skipped else "")
    ]  # fmt: skip
    lines += [f"  {s.position}: {s.reason}" for s in report.skipped]
    if report.more_skipped:
        lines.append(f"  and {report.more_skipped:,} more")
    return "\n".join(lines)
