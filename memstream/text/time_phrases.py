"""Dates and time phrases in text, resolved against a reference time (pure).

``find_spans`` finds absolute dates ("2023-05-07", "May 7, 2023", "7 May", "May 2023",
"in 2022") and relative phrases ("yesterday", "last week", "next Friday", "three days
ago", "in May") and turns each into a :class:`TimeSpan`: a half-open interval of time
with a granularity and a label ("2023-05-07", "2023-W19", "2023-05", "2023"). The entity
projection labels messages with the spans they mention (relative to the message's time);
search turns the phrases of a query into time filters (relative to the query's ``now``).
The reference time is always passed in; nothing here reads a clock.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from typing import Literal

__all__ = ["TimeSpan", "find_spans", "looks_ahead", "query_range"]

Granularity = Literal["day", "week", "month", "year"]

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            (),
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
WEEKDAYS = {
    name: number
    for number, names in enumerate(
        [
            ("monday", "mon"),
            ("tuesday", "tue", "tues"),
            ("wednesday", "wed"),
            ("thursday", "thu", "thur", "thurs"),
            ("friday", "fri"),
            ("saturday", "sat"),
            ("sunday", "sun"),
        ]
    )
    for name in names
}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "a couple of": 2,
    "a few": 3,
    "several": 3,
}

_MONTH = (
    r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_LONG_MONTH = (
    r"(?P<month>january|february|march|april|may|june|july|august|september|october"
    r"|november|december)"
)
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_WEEKDAY = r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_COUNT = (
    r"(?P<count>\d{1,3}|a couple of|a few|several|an?|one|two|three|four|five|six|seven"
    r"|eight|nine|ten)"
)
_UNIT = r"(?P<unit>day|week|month|year)s?"

#: Words one of which a text must contain for each pattern to be tried at all (most
#: messages name no date: one scan for these words is all they cost).
_TRIGGER = re.compile(
    r"\d|\b(?:yesterday|today|tonight|tomorrow|ago|week|month|year"
    r"|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun"
    r"|spring|summer|autumn|fall|winter)",
    re.I,
)
_MONTH_WORDS = frozenset(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
)
_DAY_WORDS = frozenset(["mon", "tue", "wed", "thu", "fri", "sat", "sun"])
_NEEDS: dict[str, frozenset[str]] = {
    "iso": frozenset({"digit"}),
    "month_day_year": frozenset({"digit"}) | _MONTH_WORDS,
    "day_month_year": frozenset({"digit"}) | _MONTH_WORDS,
    "month_year": frozenset({"digit"}) | _MONTH_WORDS,
    "month_day": frozenset({"digit"}) | _MONTH_WORDS,
    "day_month": frozenset({"digit"}) | _MONTH_WORDS,
    "ago": frozenset({"ago"}),
    "in_count": frozenset({"week", "month", "year", "digit"}),
    "relative_day": frozenset({"yesterday", "today", "tonight", "tomorrow"}),
    "relative_unit": frozenset({"week", "month", "year"}),
    "relative_weekday": _DAY_WORDS,
    "in_month": _MONTH_WORDS,
    "relative_month": _MONTH_WORDS,
    "season": frozenset({"spring", "summer", "autumn", "fall", "winter"}),
    "in_year": frozenset({"digit"}),
}
#: Patterns whose every trigger is required (all of "digit" and a month word, say).
_NEEDS_ALL = {
    name: [frozenset({"digit"}), _MONTH_WORDS]
    for name in ("month_day_year", "day_month_year", "month_year", "month_day", "day_month")
}

#: Tried in order; an earlier pattern wins where two overlap.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(rf"\b{_YEAR}-(?P<mnum>[01]\d)-(?P<day>[0-3]\d)\b")),
    ("month_day_year", re.compile(rf"\b{_MONTH}\.?\s+{_DAY},?\s+{_YEAR}\b", re.I)),
    ("day_month_year", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\.?,?\s+{_YEAR}\b", re.I)),
    ("month_year", re.compile(rf"\b{_LONG_MONTH},?\s+{_YEAR}\b", re.I)),
    ("month_day", re.compile(rf"\b{_LONG_MONTH}\s+{_DAY}\b(?!\s*(?:am|pm|:))", re.I)),
    ("day_month", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_LONG_MONTH}\b", re.I)),
    ("ago", re.compile(rf"\b{_COUNT}\s+{_UNIT}\s+ago\b", re.I)),
    ("in_count", re.compile(rf"\bin\s+{_COUNT}\s+{_UNIT}\b", re.I)),
    ("relative_day", re.compile(r"\b(?P<word>yesterday|today|tonight|tomorrow)\b", re.I)),
    (
        "relative_unit",
        re.compile(r"\b(?P<which>last|this|next|past)\s+(?P<unit>week(?:end)?|month|year)\b", re.I),
    ),
    ("relative_weekday", re.compile(rf"\b(?P<which>last|this|next|on)\s+{_WEEKDAY}\b", re.I)),
    ("relative_month", re.compile(rf"\b(?P<which>last|this|next)\s+{_LONG_MONTH}\b", re.I)),
    ("in_month", re.compile(rf"\b(?:in|during|since|of)\s+{_LONG_MONTH}\b", re.I)),
    (
        "season",
        re.compile(
            r"\b(?P<which>last|this|next|(?:in|during|over)(?:\s+the)?)\s+"
            r"(?P<season>spring|summer|autumn|fall|winter)\b",
            re.I,
        ),
    ),
    ("in_year", re.compile(rf"\b(?:in|during|since|of|back in)\s+{_YEAR}\b", re.I)),
]


@dataclass(frozen=True, slots=True)
class TimeSpan:
    """A stretch of time a text refers to: ``[start, end)`` in UTC."""

    start: datetime
    end: datetime
    granularity: Granularity
    text: str

    @property
    def label(self) -> str:
        """A stable name for the span: ``2023-05-07``, ``2023-W19``, ``2023-05``, ``2023``."""
        d = self.start.date()
        if self.granularity == "day":
            return d.isoformat()
        if self.granularity == "week":
            year, week, _ = d.isocalendar()
            return f"{year}-W{week:02d}"
        if self.granularity == "month":
            return f"{d.year}-{d.month:02d}"
        return str(d.year)


#: What says a sentence speaks of what is to come: a future form, a plan.
_FUTURE = re.compile(
    r"\b(?:will|shall|going\s+to|gonna|plan(?:s|ning)?\s+(?:to|on)|hop(?:e|es|ing)\s+to|"
    r"about\s+to|can't\s+wait|looking\s+forward|upcoming)\b|\w'll\b",
    re.IGNORECASE,
)
#: A present tense that speaks of a plan when a day is named: "I start on Monday", "we're
#: flying on Friday".
_SCHEDULED = re.compile(
    r"\b(?:start|starts|begin|begins|leave|leaves|fly|flies|arrive|arrives|move|moves)\b|"
    r"(?:'m|'re|\bam|\bare|\bis)\s+(?:\w+ing)\b",
    re.IGNORECASE,
)
#: A past tense: the day named is behind.
_PAST = re.compile(
    r"\b(?:was|were|did|had|went|got|came|left|took|met|saw|made|told|said|began|flew|"
    r"(?!(?:need|indeed|proceed|exceed|succeed|speed|feed|seed|breed)\b)\w{3,}ed)\b",
    re.IGNORECASE,
)


def looks_ahead(text: str) -> bool:
    """Whether ``text`` speaks of what is to come ("I'll see her on Friday", "I start my
    new job on Monday"), so a bare "on Monday" or "in October" in it is the next one."""
    if _FUTURE.search(text):
        return True
    return bool(_SCHEDULED.search(text)) and not _PAST.search(text)


def find_spans(text: str, reference: datetime, seasons: bool = True) -> list[TimeSpan]:
    """The dates and time phrases in ``text``, resolved against ``reference`` (UTC): a
    bare weekday ("on Friday") or month ("in May") is the last one before, or, in a
    sentence that :func:`looks_ahead`, the next one; ``seasons`` False leaves "last
    spring" and the like out (the entity projection files no memory under a season)."""
    reference = reference.astimezone(UTC) if reference.tzinfo else reference.replace(tzinfo=UTC)
    triggers = frozenset(
        "digit" if word.isdigit() else word.lower() for word in _TRIGGER.findall(text)
    )
    if not triggers:
        return []
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, TimeSpan]] = []
    ahead: bool | None = None  # worked out once, when a bare weekday or month needs it
    for kind, pattern in _patterns_for(triggers):
        for match in pattern.finditer(text):
            a, b = match.span()
            if any(a < end and start < b for start, end in taken):
                continue
            if kind == "season" and not seasons:
                continue
            if ahead is None and kind in _TENSED:
                ahead = looks_ahead(text)
            span = _resolve(kind, match, reference, bool(ahead))
            if span is not None:
                taken.append((a, b))
                found.append((a, span))
    return [span for _, span in sorted(found, key=lambda item: item[0])]


@lru_cache(maxsize=4096)
def _patterns_for(triggers: frozenset[str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The patterns a text with these trigger words may match, in order (few distinct
    sets occur, so each is worked out once)."""
    return tuple((kind, pattern) for kind, pattern in _PATTERNS if _may_match(kind, triggers))


def _may_match(kind: str, triggers: frozenset[str]) -> bool:
    required = _NEEDS_ALL.get(kind)
    if required is not None:
        return all(triggers & group for group in required)
    return bool(triggers & _NEEDS[kind])


def query_range(text: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The time range a query's phrases ask about (their union), or None."""
    spans = find_spans(text, now)
    if not spans:
        return None
    return min(s.start for s in spans), max(s.end for s in spans)


#: The phrases whose date depends on the sentence's tense ("on Monday", "in May",
#: "August 24", "next September").
_TENSED = frozenset(
    {"relative_weekday", "in_month", "month_day", "day_month", "relative_month", "season"}
)
#: The month each season begins (in the northern hemisphere); a season is three months.
_SEASON_STARTS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


def _resolve(kind: str, m: re.Match[str], ref: datetime, ahead: bool = False) -> TimeSpan | None:
    """The span a phrase names (a bare weekday or month the next one when ``ahead``), or
    None when it names none (``February 30``) or one beyond the calendar (``9000 years
    ago``)."""
    try:
        return _resolve_unchecked(kind, m, ref, ahead)
    except (ValueError, OverflowError):
        return None


def _resolve_unchecked(
    kind: str, m: re.Match[str], ref: datetime, ahead: bool = False
) -> TimeSpan | None:
    text = m.group(0)
    groups = m.groupdict()
    today = ref.date()
    try:
        if kind == "iso":
            return _day(date(int(groups["year"]), int(groups["mnum"]), int(groups["day"])), text)
        if kind in ("month_day_year", "day_month_year"):
            month = MONTHS[groups["month"].lower().rstrip(".")]
            return _day(date(int(groups["year"]), month, int(groups["day"])), text)
        if kind == "month_year":
            return _month(int(groups["year"]), MONTHS[groups["month"].lower()], text)
        if kind in ("month_day", "day_month"):
            month = MONTHS[groups["month"].lower()]
            return _day(_nearest_date(today, month, int(groups["day"]), ahead), text)
    except ValueError:  # "February 30"
        return None
    if kind == "ago":
        return _shifted(today, -_count(groups["count"]), groups["unit"].lower(), text)
    if kind == "in_count":
        return _shifted(today, _count(groups["count"]), groups["unit"].lower(), text)
    if kind == "relative_day":
        word = groups["word"].lower()
        offset = {"yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1}[word]
        return _day(today + timedelta(days=offset), text)
    if kind == "relative_unit":
        return _relative_unit(today, groups["which"].lower(), groups["unit"].lower(), text)
    if kind == "relative_weekday":
        which = groups["which"].lower()
        if which == "on" and ahead:  # "I start on Monday": the next one, today included
            which = "coming"
        return _relative_weekday(today, which, groups["weekday"].lower(), text)
    if kind == "in_month":
        month = MONTHS[groups["month"].lower()]
        # The most recent such month that has begun ("in May", asked in March 2024,
        # means May 2023), or, looking ahead, the next that has not ended.
        if ahead:
            year = today.year if month >= today.month else today.year + 1
        else:
            year = today.year if month <= today.month else today.year - 1
        return _month(year, month, text)
    if kind == "relative_month":
        month = MONTHS[groups["month"].lower()]
        which = groups["which"].lower()
        if which == "next":  # the next that has not begun
            year = today.year if month > today.month else today.year + 1
        elif which == "last":  # the last that has ended
            year = today.year if month < today.month else today.year - 1
        else:
            year = today.year
        return _month(year, month, text)
    if kind == "season":
        return _season(today, groups["which"].lower(), groups["season"].lower(), ahead, text)
    if kind == "in_year":
        year = int(groups["year"])
        return TimeSpan(_at(date(year, 1, 1)), _at(date(year + 1, 1, 1)), "year", text)
    return None


def _nearest_date(today: date, month: int, day: int, ahead: bool) -> date:
    """The year of a date named without one: the nearest such date ("January 25", said
    on December 21, is next month's; "December 20", said on January 5, last month's),
    and in a sentence that looks ahead, not one that has passed. A past tense says
    nothing of it: "we booked the trip for 12 May" is a trip to come."""
    candidates = []
    for year in (today.year - 1, today.year, today.year + 1):
        try:
            candidates.append(date(year, month, day))
        except ValueError:  # February 29 of a year without one
            continue
    if not candidates:
        raise ValueError(f"no day {day} in month {month}")
    nearest = min(candidates, key=lambda d: (abs((d - today).days), d < today))
    if ahead and nearest < today:
        later = [d for d in candidates if d >= today]
        return later[0] if later else nearest
    return nearest


def _season(today: date, which: str, season: str, ahead: bool, text: str) -> TimeSpan:
    """The season a phrase names: "last autumn" the last that has ended, "next spring"
    the next to begin, "this summer" the one under way, else this year's, "in
    the winter" the last begun, or looking ahead, the next not ended. Its span is the
    season's three months; its label, the year it begins in."""
    first = _SEASON_STARTS[season]
    spans = []
    for year in (today.year - 2, today.year - 1, today.year, today.year + 1):
        end_year, end_month = _add_months(year, first, 3)
        spans.append((date(year, first, 1), date(end_year, end_month, 1)))
    if which == "last":
        start, end = [s for s in spans if s[1] <= today][-1]
    elif which == "next":
        start, end = next(s for s in spans if s[0] > today)
    elif which == "this":
        under_way = [s for s in spans if s[0] <= today < s[1]]
        start, end = (
            under_way[0] if under_way else next(s for s in spans if s[0].year == today.year)
        )
    elif ahead:
        start, end = next(s for s in spans if s[1] > today)
    else:
        start, end = [s for s in spans if s[0] <= today][-1]
    return TimeSpan(_at(start), _at(end), "year", text)


def _count(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _NUMBERS[word]


def _at(d: date) -> datetime:
    return datetime.combine(d, time(), tzinfo=UTC)


def _day(d: date, text: str) -> TimeSpan:
    return TimeSpan(_at(d), _at(d + timedelta(days=1)), "day", text)


def _week_of(d: date, text: str) -> TimeSpan:
    monday = d - timedelta(days=d.weekday())
    return TimeSpan(_at(monday), _at(monday + timedelta(days=7)), "week", text)


def _month(year: int, month: int, text: str) -> TimeSpan:
    last = calendar.monthrange(year, month)[1]
    return TimeSpan(
        _at(date(year, month, 1)), _at(date(year, month, last) + timedelta(days=1)), "month", text
    )


def _add_months(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1


def _shifted(today: date, amount: int, unit: str, text: str) -> TimeSpan:
    if unit == "day":
        return _day(today + timedelta(days=amount), text)
    if unit == "week":
        return _week_of(today + timedelta(weeks=amount), text)
    if unit == "month":
        return _month(*_add_months(today.year, today.month, amount), text)
    year = today.year + amount
    return TimeSpan(_at(date(year, 1, 1)), _at(date(year + 1, 1, 1)), "year", text)


def _relative_unit(today: date, which: str, unit: str, text: str) -> TimeSpan:
    step = {"last": -1, "past": -1, "this": 0, "next": 1}[which]
    if unit == "weekend":
        saturday = today + timedelta(days=(5 - today.weekday()) % 7) + timedelta(weeks=step)
        if which in ("last", "past"):
            saturday = today - timedelta(days=(today.weekday() - 5) % 7 or 7)
        return TimeSpan(_at(saturday), _at(saturday + timedelta(days=2)), "day", text)
    if which == "past":  # "the past week": the seven days up to today
        length = {"week": 7, "month": 30, "year": 365}[unit]
        return TimeSpan(
            _at(today - timedelta(days=length)),
            _at(today + timedelta(days=1)),
            "day",
            text,
        )
    return _shifted(today, step, unit, text)


def _relative_weekday(today: date, which: str, weekday: str, text: str) -> TimeSpan:
    target = WEEKDAYS[weekday]
    if which == "last":
        back = (today.weekday() - target) % 7 or 7
        return _day(today - timedelta(days=back), text)
    if which == "next":
        ahead = (target - today.weekday()) % 7 or 7
        return _day(today + timedelta(days=ahead), text)
    if which == "on":  # "on Friday" in a message: the most recent one, today included
        return _day(today - timedelta(days=(today.weekday() - target) % 7), text)
    if which == "coming":  # "on Friday" of what is to come: the next one, today included
        return _day(today + timedelta(days=(target - today.weekday()) % 7), text)
    return _day(today + timedelta(days=target - today.weekday()), text)  # this Friday
