"""Entity extraction and resolution, on tables of cases (pure functions)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memstream.projections.entities import MentionSeen, entity_id, fold_mentions
from memstream.storage.log_records import LogPosition
from memstream.text import mentions
from memstream.text.mentions import EntityMention, extract_mentions, normalize_name

AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday


def names(text: str, speaker: str | None = None) -> set[tuple[str, str]]:
    return {(m.type, m.name) for m in extract_mentions(text, speaker, AT)}


def _at(epoch: str, offset: int) -> LogPosition:
    return LogPosition(epoch, "memory.messages", 0, offset)


@pytest.mark.parametrize(
    ("text", "expected", "absent"),
    [
        ("Yesterday Caroline met Maria Gonzalez.", {"Caroline", "Maria Gonzalez"}, {"Maria"}),
        ("Hey Mel! Good to see you!", {"Mel"}, {"Hey", "Good"}),
        ("Thanks, Melanie! That means a lot.", {"Melanie"}, {"Thanks", "That"}),
        ("Yesterday was great. Today too.", set(), {"Yesterday", "Today"}),
        ("We went there in May and on Friday.", set(), {"May", "Friday"}),
        ("Zoë's dog ran away; zoë was sad.", {"Zoë"}, set()),
        (
            "I love Leonardo da Vinci and Ludwig van Beethoven.",
            {"Leonardo da Vinci", "Ludwig van Beethoven"},
            {"Leonardo"},
        ),
        ("Researching adoption agencies, it's been a dream.", set(), {"Researching"}),
        ("WOW AMAZING news from NASA", set(), {"AMAZING", "NASA"}),  # NASA: an organization
        ("I climb on Tuesdays and in Mays with Marta.", {"Marta"}, {"Tuesdays", "Mays"}),
        ("Send a POST to the API, then ask the UX team.", set(), {"POST", "API", "UX"}),
        ("Ёлка и Владимир Путин", {"Владимир Путин"}, set()),
        ("i talked to john yesterday", set(), {"john"}),  # lowercase names are not guessed
    ],
)
def test_person_like_names(text: str, expected: set[str], absent: set[str]) -> None:
    found = {name for kind, name in names(text) if kind == "person"}
    assert expected <= found
    assert not (absent & found)


def test_handles_emails_urls_hashtags_money_times_and_the_speaker() -> None:
    found = names(
        "Ping @vitaly.k or mail vitaly@example.com, see https://x.io/a/. #Hiking costs $1,200 "
        "or 300 euros at 7pm, 15:30 latest.",
        speaker="Sam",
    )
    assert {
        ("person", "Sam"),
        ("person", "vitaly.k"),
        ("email", "vitaly@example.com"),
        ("url", "https://x.io/a/"),
        ("hashtag", "#Hiking"),
        ("money", "USD 1,200"),
        ("money", "EUR 300"),
        ("time", "19:00"),
        ("time", "15:30"),
    } <= found
    assert ("person", "example") not in found  # the email's parts are not names


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("I went to a support group yesterday", "2023-05-07"),
        ("we met on 7 May 2023", "2023-05-07"),
        ("the party is on June 3", "2023-06-03"),
        ("last Friday was fun", "2023-05-05"),
        ("see you next week", "2023-W20"),
        ("two weeks ago I moved", "2023-W17"),
        ("back in 2019 we lived there", "2019"),
        ("since March 2021", "2021-03"),
    ],
)
def test_dates_resolved_against_the_message_time(text: str, label: str) -> None:
    assert ("date", label) in names(text)


def test_names_resolve_whatever_their_case_accents_or_at_sign() -> None:
    keys = {normalize_name(n) for n in ("Vitaly", "vitaly", "@Vitaly", " VITALY ")}
    assert keys == {"vitaly"}
    assert normalize_name("Zoë") == normalize_name("zoe")
    assert entity_id("u", "person", "vitaly") != entity_id("other", "person", "vitaly")


def test_folding_counts_mentions_once_even_if_applied_twice() -> None:
    vitaly = EntityMention("person", "Vitaly", "vitaly")
    full = EntityMention("person", "Vitaly Petrov", "vitaly")
    seen = [
        MentionSeen(
            "u",
            vitaly,
            datetime(2024, 1, 1, tzinfo=UTC),
            _at("e1", 5),
        ),
        MentionSeen("u", full, datetime(2024, 2, 1, tzinfo=UTC), _at("e1", 9)),
    ]
    once = fold_mentions({}, seen)
    [row] = once.values()
    assert row["mention_count"] == 2
    assert row["canonical_name"] == "Vitaly Petrov"
    assert row["first_seen"].month == 1 and row["last_seen"].month == 2
    again = fold_mentions(once, seen)  # a batch re-applied after a crash
    assert again == {}
    later = fold_mentions(once, [MentionSeen("u", vitaly, AT, _at("e2", 0))])  # a new log
    assert later[row["entity_id"]]["mention_count"] == 3


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Lisbon and I work as a nurse at Santa Maria hospital.",
         {("place", "Lisbon"), ("organization", "Santa Maria")}),
        ("I now work as a software tester at Farfetch.", {("organization", "Farfetch")}),
        ("Ana's cat Miso likes tuna.", {("person", "Ana"), ("pet", "Miso")}),
        ("My dog Max, a golden retriever, loves his ball.", {("pet", "Max")}),
        ("Yesterday Buddy, our puppy, chewed the sofa.", {("pet", "Buddy")}),
        ("We moved to Braga with my brother Tiago.", {("place", "Braga"), ("person", "Tiago")}),
        ("I think Porto is lovely in spring.", {("place", "Porto")}),  # the gazetteer alone
        ("I'm originally from Sweden.", {("place", "Sweden")}),
        ("I think Florence called me.", {("person", "Florence")}),  # a given name first
        ("We spent a week in Florence.", {("place", "Florence")}),
        ("She joined Acme Corp in March.", {("organization", "Acme Corp")}),
        ("I met Maria at Google.", {("person", "Maria"), ("organization", "Google")}),
        ("I smiled at Jo.", {("person", "Jo")}),
        ("I've been playing Valorant with Jo.", {("product", "Valorant"), ("person", "Jo")}),
        ("I went to the LGBTQ support group.", {("organization", "LGBTQ")}),
        ("Good news from NASA today.", {("organization", "NASA")}),
        ("We moved to the UK.", {("place", "UK")}),
        ("I push to GitHub and deploy with FastAPI.",
         {("product", "GitHub"), ("product", "FastAPI")}),
        ("Send a GET request to the API.", set()),
        ("We track experiments in Weights & Biases for now.",
         {("organization", "Weights & Biases")}),
        ("I bought shares of Procter & Gamble.", {("organization", "Procter & Gamble")}),
    ],
)  # fmt: skip
def test_names_are_typed_as_people_places_organisations_pets_or_products(
    text: str, expected: set[tuple[str, str]]
) -> None:
    found = {(k, n) for k, n in names(text, "Maya") if n != "Maya" and k not in {"date", "time"}}
    assert found == expected


def test_a_name_keeps_its_entity_id_and_takes_the_kind_a_later_sentence_gives_it() -> None:
    bare = extract_mentions("I think Porto is lovely.", None, AT)
    told = extract_mentions("We moved to Porto.", None, AT)
    assert [m.type for m in bare] == ["place"]  # the gazetteer knows it anyway
    jo = extract_mentions("I saw Jo today.", None, AT)[0]
    at_jo = extract_mentions("We met at Jo.", None, AT)[0]
    assert (jo.type, at_jo.type) == ("person", "organization")
    [row] = fold_mentions({}, [MentionSeen("u", jo, AT, _at("e1", 1))]).values()
    after = fold_mentions({row["entity_id"]: row}, [MentionSeen("u", at_jo, AT, _at("e1", 2))])
    assert after[row["entity_id"]]["type"] == "organization"  # same id, the kind refined
    back = fold_mentions(after, [MentionSeen("u", jo, AT, _at("e1", 3))])
    assert back[row["entity_id"]]["type"] == "organization"  # a bare name does not undo it
    assert told[0].key == bare[0].key


_ENDS = re.compile(r"[.!?…:;\"“”()\[\]\n]\s*$")  # the rule, as a regex over all before


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab A.!\n \t:;(“…")), max_size=60), st.data())
def test_a_sentence_start_is_judged_by_what_stands_before_it(
    text: str, data: st.DataObject
) -> None:
    start = data.draw(st.integers(0, len(text)))
    before = text[:start]
    expected = not before.strip() or bool(_ENDS.search(before))
    assert mentions._sentence_initial(text, start) == expected


def test_a_long_paste_names_at_most_the_first_entities_it_may() -> None:
    """A listing of 1,000 names: the speaker and the first names, 256 in all."""
    text = " ".join(f"I met Name{n} Smith." for n in range(1_000))
    found = extract_mentions(text, "Ana", datetime(2026, 11, 29, tzinfo=UTC))
    assert len(found) == mentions.MAX_MENTIONS
    assert found[0].key == "ana" and found[1].key == "name0 smith"
