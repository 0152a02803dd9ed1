"""Documents read and cut into chunks: real files made here (Markdown with nested
headings, an HTML page, multi-page PDFs written by fpdf2, an encrypted PDF, one with no
text layer, an empty file, files that are not what their names say), and the chunker's
promises checked on any text (Hypothesis)."""

from __future__ import annotations

import json
import unicodedata

import pytest
from fpdf import FPDF
from hypothesis import given, settings
from hypothesis import strategies as st

from memstream.adapters.document_parsing import (
    DocumentUnreadable,
    UnsupportedMediaType,
    media_type_of,
    parse_document,
)
from memstream.adapters.tokens import count_tokens
from memstream.text.chunks import Block, chunk_blocks, document_text

SPEC = """# Lease

Between Ana Costa (tenant) and Bo Lind (landlord), for the flat in Rua Augusta 12.

## Rent

The rent is 900 euros a month, paid on the first day of each month.

### Late payment

A payment more than ten days late costs a fee of 5%.

## Renewal

The tenant may renew the lease for two more years by written notice.
Notice is due 60 days before the lease ends.

```
# a comment in a code block, not a heading
```

Termination
-----------

Either party may end the lease with three months' notice.
"""


def words(n: int, start: int = 0) -> str:
    """``n`` sentences of ten words each (``w<i>`` numbered from ``start``)."""
    return " ".join(" ".join(f"w{start + s * 10 + i}" for i in range(10)) + "." for s in range(n))


def pdf(pages: list[str], **options: str) -> bytes:
    document = FPDF()
    if options:
        document.set_encryption(**options)  # type: ignore[arg-type]
    document.set_font("helvetica", size=11)
    for text in pages:
        document.add_page()
        if text:
            document.multi_cell(0, 6, text)
    return bytes(document.output())


def test_markdown_headings_nest_and_code_is_no_heading() -> None:
    data = SPEC.encode()
    parsed = parse_document(data, media_type_of(data, "lease.md"))
    assert parsed.title == "Lease"
    assert [(b.headings, b.text[:24]) for b in parsed.blocks] == [
        (("Lease",), "Between Ana Costa (tenan"),
        (("Lease", "Rent"), "The rent is 900 euros a "),
        (("Lease", "Rent", "Late payment"), "A payment more than ten "),
        (("Lease", "Renewal"), "The tenant may renew the"),
        (("Lease", "Renewal"), "```\n# a comment in a cod"),
        (("Lease", "Termination"), "Either party may end the"),
    ]


def test_html_headings_and_text_without_scripts() -> None:
    page = (
        b"<!DOCTYPE html><html><head><title>Onboarding</title><style>p{}</style></head>"
        b"<body><nav>Home</nav><h1>Welcome</h1><p>Read <b>this</b> first.</p>"
        b"<h2>Accounts</h2><ul><li>Ask IT for a laptop.</li><li>Set up 2FA.</li></ul>"
        b"<script>track()</script><h2>Payroll</h2><p>Paid on the 25th.</p></body></html>"
    )
    parsed = parse_document(page, media_type_of(page, "onboarding.html"))
    assert parsed.title == "Onboarding"
    assert [(b.headings, b.text) for b in parsed.blocks] == [
        ((), "Home"),
        (("Welcome",), "Read this first."),
        (("Welcome", "Accounts"), "Ask IT for a laptop."),
        (("Welcome", "Accounts"), "Set up 2FA."),
        (("Welcome", "Payroll"), "Paid on the 25th."),
    ]


def test_pdf_pages_and_numbered_headings() -> None:
    data = pdf(
        [
            "1 Parties\nAna Costa rents the flat from Bo Lind.",
            "2 Rent\nThe rent is 900 euros a month.",
            "3 Renewal\nThe tenant may renew for two more years.\n3.1 Notice\nSixty days.",
        ]
    )
    parsed = parse_document(data, media_type_of(data, "lease.pdf", "application/pdf"))
    assert parsed.pages == 3
    assert [(b.page, b.headings, b.text) for b in parsed.blocks] == [
        (1, ("1 Parties",), "Ana Costa rents the flat from Bo Lind."),
        (2, ("2 Rent",), "The rent is 900 euros a month."),
        (3, ("3 Renewal",), "The tenant may renew for two more years."),
        (3, ("3 Renewal", "3.1 Notice"), "Sixty days."),
    ]


@pytest.mark.parametrize(
    ("data", "name", "declared", "error_class"),
    [
        (pdf(["secret"], owner_password="o", user_password="u"), "x.pdf", None, "encrypted"),
        (b"%PDF-1.7\n garbage, no objects", "x.pdf", None, "corrupt"),
        (b"just some notes", "notes.pdf", None, "mismatched"),
        (pdf(["a page"]), "notes.md", None, "mismatched"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "notes.txt", None, "mismatched"),
        (pdf(["a"] * 3), "x.pdf", None, "too_many_pages"),
    ],
)
def test_unreadable_documents_fail_with_their_class(
    data: bytes, name: str, declared: str | None, error_class: str
) -> None:
    with pytest.raises(DocumentUnreadable) as failure:
        parse_document(data, media_type_of(data, name, declared), max_pages=2)
    assert failure.value.error_class == error_class and str(failure.value)


@pytest.mark.parametrize(
    ("name", "declared"),
    [("photo.png", None), ("book.epub", None), (None, "image/png"), ("x", "application/zip")],
)
def test_types_memstream_does_not_read_are_named_with_those_it_reads(
    name: str | None, declared: str | None
) -> None:
    named = "it reads application/pdf, application/vnd.openxmlformats-officedocument"
    with pytest.raises(UnsupportedMediaType, match=named):
        media_type_of(b"\x89PNG\r\n\x1a\n\x00", name, declared)


def test_an_empty_file_and_a_pdf_without_text_have_no_blocks() -> None:
    assert parse_document(b"", media_type_of(b"", "empty.txt")).blocks == []
    scanned = FPDF()
    scanned.add_page()
    scanned.rect(10, 10, 100, 100, style="F")  # a picture of a page, no text layer
    data = bytes(scanned.output())
    assert parse_document(data, "application/pdf").blocks == []
    assert chunk_blocks([], count_tokens) == []


def test_bytes_say_what_they_are_without_a_name() -> None:
    assert media_type_of(b"<!doctype html><p>x</p>") == "text/html"
    assert media_type_of(pdf(["x"])) == "application/pdf"
    assert media_type_of("plain café".encode()) == "text/plain"
    assert media_type_of(b"# x", None, "text/markdown; charset=utf-8") == "text/markdown"


def test_chunk_boundaries_and_overlap() -> None:
    """Sections start chunks once a chunk holds a quarter of the target; a long
    section is cut between sentences, each continuation starting with the last
    sentences of the chunk before (about the overlap); pages and headings follow."""
    blocks = [
        Block("Short intro.", 1, ("A",)),
        Block(words(3, 0), 1, ("A", "B")),  # 3 sentences
        Block(words(12, 100), 2, ("A", "B")),  # longer than a chunk: cut
        Block(words(2, 500), 3, ("A", "C")),
    ]
    chunks = chunk_blocks(blocks, count_tokens, target=100, overlap=25)
    text = document_text(blocks)
    table = [
        (c.index, c.page, c.last_page, c.headings, c.text.split()[0], c.text.split()[-1])
        for c in chunks
    ]
    # a sentence is 31 tokens: a long block is cut into parts of two (at most the
    # target less the overlap), each chunk after the first of a section starts with
    # the last sentence of the one before
    assert table == [
        (0, 1, 1, ("A",), "Short", "w29."),  # the intro is too short to stand alone
        (1, 1, 2, ("A", "B"), "w20", "w119."),  # overlap w20-w29, then w100-w119
        (2, 2, 2, ("A", "B"), "w110", "w139."),
        (3, 2, 2, ("A", "B"), "w130", "w159."),
        (4, 2, 2, ("A", "B"), "w150", "w179."),
        (5, 2, 2, ("A", "B"), "w170", "w199."),
        (6, 2, 2, ("A", "B"), "w190", "w219."),
        (7, 3, 3, ("A", "C"), "w500", "w519."),  # a new section: no overlap
    ]
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.tokens == count_tokens(chunk.text) <= 100


_TEXT = st.text(alphabet=st.sampled_from("ab .\n"), min_size=1, max_size=300)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(_TEXT, st.integers(1, 3), st.sampled_from([(), ("x",), ("x", "y"), ("z",)])),
        max_size=12,
    ),
    st.integers(8, 60),
)
def test_every_word_is_in_a_chunk_in_order_and_spans_hold_the_text(
    raw: list[tuple[str, int, tuple[str, ...]]], target: int
) -> None:
    def count(text: str) -> int:
        return len(text.split())

    blocks = [Block(t, page, h) for t, page, h in raw if t.strip()]
    chunks = chunk_blocks(blocks, count, target=target, overlap=target // 10)
    text = document_text(blocks)
    covered = [False] * len(text)
    end = 0
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.end > end, "no progress"
        assert chunk.start <= end or not text[end : chunk.start].strip(), "text left out"
        covered[chunk.start : chunk.end] = [True] * (chunk.end - chunk.start)
        end = chunk.end
        assert count(chunk.text) <= target or count(chunk.text) == 1
    assert all(c or text[i].isspace() for i, c in enumerate(covered)), "text left out"
    assert chunk_blocks(blocks, count, target=target, overlap=target // 10) == chunks


#: Text the tokenizer counts as few tokens, or that holds no space to cut at.
HARD_TEXT = {
    "Chinese": "# 中文\n\n" + "我住在里斯本\uff0c我喜欢喝茶。" * 2500,
    "Japanese": "# 日本語\n\n" + "私はリスボンに住んでいます。お茶が好きです。" * 2000,
    "an inline image": "# Pic\n\n![x](data:image/png;base64,"
    + "iVBORw0KGgo" * 2000
    + ")\n\nAfter.",
    "minified JSON": "# J\n\n```json\n"
    + json.dumps({f"key{i}": i for i in range(5000)}, separators=(",", ":"))
    + "\n```\n",
    "a long address": "# U\n\nSee https://example.com/" + "a" * 30_000 + " for more.",
    "combining marks": "# M\n\n" + "e\u0301\u0301" * 20_000,
}


@pytest.mark.parametrize("name", sorted(HARD_TEXT))
def test_text_of_any_script_or_without_spaces_is_cut_within_both_bounds(name: str) -> None:
    """Runs without spaces are cut between characters, never inside a character and
    its marks; each chunk is within the token and the character bound (the field's
    limit is 20,000 characters: a chunk of this Chinese text was 32,500)."""
    parsed = parse_document(HARD_TEXT[name].encode(), "text/markdown")
    chunks = chunk_blocks(parsed.blocks, count_tokens, target=400, overlap=40)
    text = document_text(parsed.blocks)
    assert len(chunks) > 1
    covered = [False] * len(text)
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.tokens <= 440 and len(chunk.text) <= 3_200, (chunk.tokens, len(chunk.text))
        assert not unicodedata.combining(chunk.text[0])
        covered[chunk.start : chunk.end] = [True] * (chunk.end - chunk.start)
    assert all(c or text[i].isspace() for i, c in enumerate(covered)), "text left out"


def test_chinese_sentences_end_at_the_ideographic_full_stop() -> None:
    blocks = [Block("我住在里斯本。" * 300)]
    chunks = chunk_blocks(blocks, count_tokens, target=100, overlap=10)
    assert all(c.text.endswith("。") for c in chunks)


_ANY = st.text(
    alphabet=st.sampled_from(["a", "b", " ", ".", "\n", "中", "。", "\u0301", "\u200d", "😀"]),
    min_size=1,
    max_size=400,
)


@settings(max_examples=80, deadline=None)
@given(st.lists(_ANY, min_size=1, max_size=6), st.integers(4, 40), st.integers(6, 120))
def test_no_chunk_passes_either_bound_whatever_the_text(
    raw: list[str], target: int, max_chars: int
) -> None:
    """Whatever the script and spacing, each chunk holds at most about ``target``
    tokens and ``max_chars`` characters (an overlap's worth more), and every
    character of the text is in a chunk, in order."""

    def count(text: str) -> int:  # a tokenizer that counts a run without spaces as one
        return len(text.split())

    blocks = [Block(t) for t in raw if t.strip()]
    overlap = target // 10
    chunks = chunk_blocks(blocks, count, target=target, overlap=overlap, max_chars=max_chars)
    text = document_text(blocks)
    covered = [False] * len(text)
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert len(chunk.text) <= max_chars + max_chars * overlap // target + 2, chunk
        assert count(chunk.text) <= target + overlap or count(chunk.text) == 1
        covered[chunk.start : chunk.end] = [True] * (chunk.end - chunk.start)
    assert all(c or text[i].isspace() for i, c in enumerate(covered)), "text left out"
