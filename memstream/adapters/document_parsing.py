"""Reading the text out of a document's bytes: plain text, Markdown, HTML, PDF and DOCX.

:func:`media_type_of` says what a file is from its bytes (and checks that against what
its name or its sender says); :func:`parse_document` turns the bytes into
:class:`~memstream.text.chunks.Block` s with their pages and heading paths.

- Markdown: `markdown-it-py` (CommonMark) gives the block structure, so a ``#`` in a
  code block is no heading and a setext heading is one.
- HTML: the standard library's parser; ``h1``-``h6`` are headings, ``script``, ``style``
  and ``template`` are not text.
- PDF: `pypdfium2` (PDFium, the PDF engine of Chromium, in the wheel: no network, fast
  on long documents) reads the text layer page by page; a line like ``3.2 Renewal``
  or ``§ 4 Notice`` is taken as a heading. An encrypted PDF, a damaged one and one over
  the page limit fail with a :class:`DocumentUnreadable` naming the class of failure.
- DOCX: `python-docx`, once the zip's declared sizes say it inflates to at most
  :data:`MAX_INFLATED_BYTES` (``too_large`` otherwise); paragraphs and tables in the
  body's order, a paragraph styled ``Title`` or ``Heading N`` is a heading; pages as
  the document marks them (its page breaks, and those Word recorded when it last laid
  the document out).

What fails is final: the same bytes fail the same way every time, so a failure is
recorded once, with its class and message, never retried.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import PurePath

from memstream.text.chunks import Block

__all__ = [
    "ACCEPTED",
    "DOCX",
    "MAX_BLOCKS",
    "MAX_INFLATED_BYTES",
    "DocumentUnreadable",
    "ParsedDocument",
    "UnsupportedMediaType",
    "claimed_media_type",
    "media_type_of",
    "parse_document",
    "what_bytes_are",
]

#: The most a DOCX may inflate to, all of its parts together (a zip's parts are read no
#: further than the sizes its directory declares, so the declared sizes bound it).
MAX_INFLATED_BYTES = 128 * 1024 * 1024
#: The most blocks (paragraphs, list items, table rows, headings) a document may have:
#: a 50 MB Markdown file of prose has about 100,000; a file past this is ``too_complex``.
MAX_BLOCKS = 2_000_000
#: A Word document (Office Open XML).
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
#: The media types memstream reads, with the file name endings that say them.
ACCEPTED = {
    "text/plain": (".txt", ".text", ".log", ".csv"),
    "text/markdown": (".md", ".markdown", ".mdown"),
    "text/html": (".html", ".htm", ".xhtml"),
    "application/pdf": (".pdf",),
    DOCX: (".docx",),
}
_ALIASES = {"text/x-markdown": "text/markdown", "application/xhtml+xml": "text/html"}


class UnsupportedMediaType(ValueError):
    """A document of a type memstream does not read (the API answers 415)."""

    def __init__(self, what: str) -> None:
        accepted = ", ".join(sorted(ACCEPTED))
        super().__init__(f"{what} is not a type memstream reads: it reads {accepted}")


class DocumentUnreadable(ValueError):
    """Bytes that cannot be read as the document they claim to be.

    Attributes:
        error_class: ``encrypted``, ``corrupt``, ``mismatched`` (not what its name or
            sender says), ``not_text``, ``too_many_pages``, ``too_large`` (it inflates
            past a limit) or ``too_complex`` (more blocks than :data:`MAX_BLOCKS`).
    """

    def __init__(self, error_class: str, message: str) -> None:
        super().__init__(message)
        self.error_class = error_class


@dataclass(frozen=True)
class ParsedDocument:
    """What a document holds: its blocks, its page count and the title it gives
    itself (an HTML ``<title>``, a Markdown document's first heading), if any."""

    blocks: list[Block]
    pages: int
    title: str | None = None


def media_type_of(data: bytes, name: str | None = None, declared: str | None = None) -> str:
    """The media type of ``data``, from its bytes, checked against the type its file
    ``name`` or its sender (``declared``) says.

    Raises:
        UnsupportedMediaType: the name or the sender says a type memstream does not
            read, or the bytes are not text and not a PDF.
        DocumentUnreadable: ``mismatched``, the bytes are not what the name says.
    """
    claimed = _claimed(name, declared)
    if data.startswith(b"%PDF-"):
        sniffed = "application/pdf"
    elif data.startswith(b"PK\x03\x04"):
        sniffed = DOCX if b"word/" in data[:65536] else "binary"
    elif _is_text(data):
        head = data[:512].lstrip().lower()
        sniffed = "text/html" if head.startswith((b"<!doctype html", b"<html")) else "text/plain"
    else:
        sniffed = "binary"
    if claimed is None:
        if sniffed == "binary":
            raise UnsupportedMediaType("a file that is neither text, a PDF nor a DOCX")
        return sniffed
    for binary, said in (("application/pdf", "PDF"), (DOCX, "DOCX")):
        if claimed == binary and sniffed != binary:
            raise DocumentUnreadable(
                "mismatched", f"{name or 'the document'} says {said}, but is not"
            )
    if claimed not in ("application/pdf", DOCX) and sniffed not in ("text/plain", "text/html"):
        what = {"application/pdf": "a PDF", DOCX: "a DOCX"}.get(sniffed, "not text")
        raise DocumentUnreadable(
            "mismatched", f"{name or 'the document'} says {claimed}, but is {what}"
        )
    return claimed


def what_bytes_are(data: bytes) -> str:
    """What ``data`` looks like, in a few words (for a refusal naming both a declared
    type and the bytes): ``a PDF``, ``a DOCX``, ``HTML``, ``text`` or neither."""
    if data.startswith(b"%PDF-"):
        return "a PDF"
    if data.startswith(b"PK\x03\x04"):
        return "a DOCX" if b"word/" in data[:65536] else "a zip archive"
    if _is_text(data):
        head = data[:512].lstrip().lower()
        return "HTML" if head.startswith((b"<!doctype html", b"<html")) else "text"
    return "neither text, a PDF nor a DOCX"


def claimed_media_type(data: bytes, name: str | None = None, declared: str | None = None) -> str:
    """The media type a document claims: its sender's (``declared``), else its
    ``name``'s, else what its bytes look like; the bytes are not checked against the
    claim (:func:`parse_document` does that).

    Raises:
        UnsupportedMediaType: the claim is a type memstream does not read, or there is
            none and the bytes are neither text nor a PDF.
    """
    claimed = _claimed(name, declared)
    return claimed if claimed is not None else media_type_of(data)


def _claimed(name: str | None, declared: str | None) -> str | None:
    if declared:
        media = declared.split(";")[0].strip().lower()
        media = _ALIASES.get(media, media)
        if media in ACCEPTED:
            return media
        if media not in ("application/octet-stream", ""):
            raise UnsupportedMediaType(media)
    if name:
        suffix = PurePath(name).suffix.lower()
        for media, suffixes in ACCEPTED.items():
            if suffix in suffixes:
                return media
        if suffix:
            raise UnsupportedMediaType(f"{PurePath(name).name} ({suffix})")
    return None


def _is_text(data: bytes) -> bool:
    try:
        text = data[:65536].decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < 65530:  # not a character cut at the end of the sample
            return False
        text = data[: exc.start].decode("utf-8")
    return "\x00" not in text


def parse_document(data: bytes, media_type: str, max_pages: int = 2000) -> ParsedDocument:
    """The blocks of a document of ``media_type`` (one of :data:`ACCEPTED`).

    Raises:
        DocumentUnreadable: the bytes cannot be read, or are not of ``media_type``
            (its ``error_class`` says why).
        UnsupportedMediaType: ``media_type`` is not one memstream reads.
    """
    if media_type not in ACCEPTED:
        raise UnsupportedMediaType(media_type)
    if not data.strip():
        return ParsedDocument([], 0)  # nothing in it, whatever it claims to be
    media_type_of(data, None, media_type)  # the bytes are what they claim to be
    parsed = _parsed(data, media_type, max_pages)
    if len(parsed.blocks) > MAX_BLOCKS:
        raise _too_complex(len(parsed.blocks))
    return parsed


def _too_complex(blocks: int) -> DocumentUnreadable:
    return DocumentUnreadable(
        "too_complex", f"the document has {blocks:,} blocks or more; the limit is {MAX_BLOCKS:,}"
    )


def _parsed(data: bytes, media_type: str, max_pages: int) -> ParsedDocument:
    if media_type == "application/pdf":
        return _pdf(data, max_pages)
    if media_type == DOCX:
        return _docx(data, max_pages)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentUnreadable("not_text", f"the document is not UTF-8 text: {exc}") from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if media_type == "text/markdown":
        return _markdown(text)
    if media_type == "text/html":
        return _html(text)
    return ParsedDocument(_paragraphs(text, 1, ()), 1)


def _paragraphs(text: str, page: int, headings: tuple[str, ...]) -> list[Block]:
    """Blocks of ``text`` split at blank lines, whitespace inside each made single."""
    return [
        Block(" ".join(part.split()), page, headings)
        for part in re.split(r"\n\s*\n", text)
        if part.strip()
    ]


# -- Markdown ----------------------------------------------------------------------------


def _markdown(text: str) -> ParsedDocument:
    from markdown_it import MarkdownIt

    lines = text.split("\n")
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    blocks: list[Block] = []
    path: list[tuple[int, str]] = []
    title = None
    for i, token in enumerate(tokens):
        if token.level != 0 or token.nesting == -1 or token.map is None:
            continue  # the outermost blocks only: a paragraph, a whole list, a table
        if token.type == "heading_open":
            level = int(token.tag[1:])
            heading = " ".join(tokens[i + 1].content.split())
            path = [(lvl, h) for lvl, h in path if lvl < level] + [(level, heading)]
            title = title or heading
            continue
        if token.type == "hr":
            continue
        first, last = token.map
        source = "\n".join(lines[first:last]).strip()
        if source:
            if token.type == "paragraph_open":  # a paragraph's line breaks are spaces
                source = " ".join(source.split())
            blocks.append(Block(source, 1, _names(path)))
    return ParsedDocument(blocks, 1, title)


def _names(path: list[tuple[int, str]]) -> tuple[str, ...]:
    return tuple(heading for _, heading in path)


# -- HTML --------------------------------------------------------------------------------

_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BLOCKS = {"p", "li", "pre", "blockquote", "td", "th", "dd", "dt", "div", "section", "article"}
_HIDDEN = {"script", "style", "template", "noscript", "head"}


class _HtmlBlocks(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[Block] = []
        self.path: list[tuple[int, str]] = []
        self.title: str | None = None
        self._text: list[str] = []
        self._heading: int | None = None
        self._hidden = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _HIDDEN:
            self._hidden += 1
        elif tag in _HEADINGS:
            self._flush()
            self._heading = _HEADINGS[tag]
        elif tag in _BLOCKS or tag == "br":
            self._flush()

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag in _HEADINGS and self._heading is not None:
            heading = " ".join("".join(self._text).split())
            self._text = []
            level, self._heading = self._heading, None
            if heading:
                self.path = [(lvl, h) for lvl, h in self.path if lvl < level] + [(level, heading)]
        elif tag in _BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title = " ".join(((self.title or "") + data).split()) or None
        elif not self._hidden:
            self._text.append(data)

    def _flush(self) -> None:
        if self._heading is not None:
            return
        text = " ".join("".join(self._text).split())
        self._text = []
        if text:
            self.blocks.append(Block(text, 1, _names(self.path)))

    def close(self) -> None:
        super().close()
        self._flush()


def _html(text: str) -> ParsedDocument:
    parser = _HtmlBlocks()
    parser.feed(text)
    parser.close()
    return ParsedDocument(parser.blocks, 1, parser.title)


# -- PDF ---------------------------------------------------------------------------------

#: A line of a PDF taken for a heading: a numbered section (``3``, ``3.2``, ``§ 4``,
#: ``Article 5``) and a short title.
_PDF_HEADING = re.compile(
    r"^(?:§\s*\d+(?:\.\d+)*|(?:article|section|clause)\s+\d+(?:\.\d+)*|\d+(?:\.\d+)*\.?)"
    r"\s+([A-Z][^.!?;:]{1,70})$",
    re.IGNORECASE,
)


def _pdf(data: bytes, max_pages: int) -> ParsedDocument:
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise DocumentUnreadable(
                "encrypted", "the PDF is encrypted: memstream cannot read its text"
            ) from None
        raise DocumentUnreadable("corrupt", f"the PDF cannot be read: {exc}") from None
    try:
        pages = len(document)
        if pages > max_pages:
            raise DocumentUnreadable(
                "too_many_pages", f"the PDF has {pages} pages; the limit is {max_pages}"
            )
        blocks: list[Block] = []
        path: list[tuple[int, str]] = []
        for number in range(pages):
            page = document[number]
            try:
                textpage = page.get_textpage()
                try:
                    text = textpage.get_text_bounded()
                finally:
                    textpage.close()
            finally:
                page.close()
            found, path = _pdf_blocks(text, number + 1, path)
            blocks.extend(found)
        return ParsedDocument(
            blocks, pages, _own_title(lambda: document.get_metadata_dict().get("Title"))
        )
    finally:
        document.close()


def _pdf_blocks(
    text: str, page: int, path: list[tuple[int, str]]
) -> tuple[list[Block], list[tuple[int, str]]]:
    """A page's blocks, its lines grouped into paragraphs at blank lines and at
    numbered headings, and the heading path at its end."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    blocks: list[Block] = []
    paragraph: list[str] = []

    def flush() -> None:
        body = " ".join(" ".join(paragraph).split())
        paragraph.clear()
        if body:
            blocks.append(Block(body, page, _names(path)))

    for line in text.split("\n"):
        stripped = line.strip()
        if _PDF_HEADING.match(stripped):
            flush()
            label = stripped.split()[0].rstrip(".")
            level = label.count(".") + 1 if label[0].isdigit() else 1
            path = [(lvl, h) for lvl, h in path if lvl < level] + [(level, stripped)]
        elif not stripped:
            flush()
        else:
            paragraph.append(stripped)
    flush()
    return blocks, path


# -- DOCX --------------------------------------------------------------------------------

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DOCX_HEADING = re.compile(r"^(?:Heading\s*(\d)|Title)$", re.IGNORECASE)


def _docx(data: bytes, max_pages: int) -> ParsedDocument:
    import io
    import zipfile

    import docx
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:  # what it inflates to, first
            inflated = sum(member.file_size for member in archive.infolist())
        if inflated > MAX_INFLATED_BYTES:
            raise DocumentUnreadable(
                "too_large",
                f"the DOCX inflates to {inflated:,} bytes; the limit is {MAX_INFLATED_BYTES:,}",
            )
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        if isinstance(exc, DocumentUnreadable):
            raise
        raise DocumentUnreadable("corrupt", f"the DOCX cannot be read: {exc}") from None
    blocks: list[Block] = []
    path: list[tuple[int, str]] = []
    title = None
    page = 1
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            rows = [
                " | ".join(" ".join(cell.text.split()) for cell in row.cells) for row in item.rows
            ]
            text = "\n".join(row for row in rows if row.strip(" |"))
            if text:
                blocks.append(Block(text, page, _names(path)))
            continue
        assert isinstance(item, Paragraph)
        if len(blocks) > MAX_BLOCKS:
            raise _too_complex(len(blocks))
        page += _page_breaks(item)
        if page > max_pages:
            raise DocumentUnreadable(
                "too_many_pages", f"the DOCX has more than {max_pages} pages, the limit"
            )
        text = " ".join(item.text.split())
        if not text:
            continue
        style = item.style.name if item.style is not None else ""
        heading = _DOCX_HEADING.match(style or "")
        if heading:
            level = int(heading.group(1) or 0)  # a Title is above every heading
            path = [(lvl, h) for lvl, h in path if lvl < level] + [(level, text)]
            title = title or text
        else:
            blocks.append(Block(text, page, _names(path)))
    own = _own_title(lambda: document.core_properties.title)  # File > Properties
    return ParsedDocument(blocks, page, own or title)


def _own_title(read: Callable[[], object]) -> str | None:
    """The title a document's properties give, on one line and at most 500 characters;
    None when it has none, or properties that cannot be read (the text still can)."""
    try:
        title = read()
    except Exception:  # a malformed property is no reason to refuse the text
        return None
    return " ".join(str(title or "")[:2000].split())[:500] or None


def _page_breaks(paragraph: object) -> int:
    """The pages a paragraph begins: its hard page breaks, or the breaks Word recorded
    in it when it last laid the document out, whichever says more."""
    element = paragraph._p  # type: ignore[attr-defined]
    hard = sum(1 for br in element.iter(f"{_W}br") if br.get(f"{_W}type") == "page")
    rendered = sum(1 for _ in element.iter(f"{_W}lastRenderedPageBreak"))
    return max(hard, rendered)
