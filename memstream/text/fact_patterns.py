"""The pieces the local extractor's rules are written with (regular expressions as
text): a name, a place, a phrase to the end of its clause, a role, a subject."""

from __future__ import annotations

__all__ = ["END", "FIRST", "NAME", "NOT_ROLE", "NOW", "PHRASE", "PLACE", "ROLE", "SUBJECT"]

NAME = r"[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,3}"
PLACE = r"(?:the\s+)?[A-Z][\w'.-]+(?:(?:\s+|,\s*)[A-Z][\w'.-]+){0,3}"
#: A phrase, up to the end of its clause: a dot or comma inside a number, a version or
#: a name ("2.0", "Fly.io", "€1,200") does not end it.
PHRASE = r"(?:[^,.;!?]|[.,](?=\w)){2,80}?"
END = (
    r"(?=\s*(?:[,.;!?](?!\w)|$|\s+(?:and|but|because|so|since|which|when|with|after|"
    r"before)\b))"
)
FIRST = r"(?P<s>I)"
#: Adverbs between a subject and its verb ("I now work", "she also quit").
NOW = r"(?:\s+(?:now|also|just|recently|finally|currently|still|actually))*"
#: A job title of up to three words, up to a preposition ("software tester at ...").
NOT_ROLE = (
    r"(?!(?:at|for|in|with|and|but|on|since|from|last|next|this|today|tomorrow|yesterday|"
    r"starting|after|before|when|because|now)\b)"
)
ROLE = r"(?:" + NOT_ROLE + r"[a-z-]+\s+){0,2}" + NOT_ROLE + r"[a-z-]+"
#: The subject of a statement: "I", "he", "she" or a name.
SUBJECT = r"(?P<s>I|he|she|" + NAME + r")"
