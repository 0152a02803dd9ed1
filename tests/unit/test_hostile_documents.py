"""Hostile documents end ``failed`` with their class, and never stop the documents
lane: a PDF whose page tree lists itself, a DOCX whose entities amplify ("billion
laughs"), a DOCX with one text node too long for the XML parser, and a DOCX that
inflates far past what a document may (refused from its zip's directory, before any of
it is inflated: the test measures the reading process's memory), a document of more
blocks than a document may have; and a document id no URL can reach (a ``.`` or ``..``
segment) is refused."""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile
from pathlib import Path

import docx
import pytest
from support.documents import T0, submitted

from memstream.adapters import document_parsing
from memstream.adapters.document_parsing import DOCX, MAX_INFLATED_BYTES
from memstream.adapters.tokens import count_tokens
from memstream.application.documents import submission
from memstream.events.errors import InvalidQuery
from memstream.events.vocabulary import DocumentFailed
from memstream.jobs.document_lane import ReadLimits, chunked_submission, parser_failed

W = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def self_listing_pdf() -> bytes:
    """A PDF whose page tree names itself among its kids (PDFium opens it, then fails
    to load its first page)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def docx_with(document_xml: bytes) -> bytes:
    """A real DOCX (python-docx's own) with ``document_xml`` as its body."""
    base = io.BytesIO()
    docx.Document().save(base)
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(base.getvalue())) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for item in source.infolist():
            body = document_xml if item.filename == "word/document.xml" else source.read(item)
            target.writestr(item.filename, body)
    return out.getvalue()


def laughs() -> bytes:
    entities = b'<!ENTITY lol0 "lol">' + b"".join(
        b'<!ENTITY lol%d "%s">' % (i, b"&lol%d;" % (i - 1) * 10) for i in range(1, 10)
    )
    return (
        b'<?xml version="1.0"?><!DOCTYPE w:document [' + entities + b"]><w:document " + W
        + b"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>"
    )  # fmt: skip


def body_of(inner: bytes) -> bytes:
    return (
        b'<?xml version="1.0"?><w:document ' + W + b"><w:body>" + inner + b"</w:body></w:document>"
    )


@pytest.mark.parametrize(
    ("name", "make", "media_type", "error_class", "named"),
    [
        ("a PDF whose page tree lists itself", self_listing_pdf, "application/pdf", "corrupt",
         "PdfiumError"),
        ("a DOCX of amplifying entities", lambda: docx_with(laughs()), DOCX, "too_complex",
         "XMLSyntaxError"),
        ("a DOCX with a 12 MB text node",
         lambda: docx_with(body_of(b"<w:p><w:r><w:t>" + b"a" * 12_000_000 + b"</w:t></w:r></w:p>")),
         DOCX, "corrupt", "XMLSyntaxError"),
    ],
)  # fmt: skip
def test_a_hostile_document_ends_failed_with_its_class(
    name: str, make: object, media_type: str, error_class: str, named: str
) -> None:
    data = make()  # type: ignore[operator]
    event = submitted(data, media_type)
    [failed] = chunked_submission(event, data, count_tokens, T0, ReadLimits())
    assert isinstance(failed, DocumentFailed), name
    assert failed.final and failed.error_class == error_class, (name, failed)
    assert named in failed.message, failed.message


def test_a_docx_that_inflates_past_the_limit_is_refused_before_it_is_inflated(
    tmp_path: Path,
) -> None:
    paragraph = b"<w:p><w:r><w:t>x</w:t></w:r></w:p>"
    bomb = docx_with(body_of(paragraph * (MAX_INFLATED_BYTES // len(paragraph) + 1)))
    assert len(bomb) < MAX_INFLATED_BYTES // 100  # a few hundred kB on the wire
    path = tmp_path / "bomb.docx"
    path.write_bytes(bomb)
    reading = (
        "import resource, sys\n"
        "from pathlib import Path\n"
        "from memstream.adapters.document_parsing import DOCX\n"
        "from memstream.adapters.tokens import count_tokens\n"
        "from memstream.jobs.document_lane import ReadLimits, chunked_submission\n"
        "from support.documents import T0, submitted\n"
        "data = Path(sys.argv[1]).read_bytes()\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "[failed] = chunked_submission(submitted(data, DOCX), data, count_tokens, T0,"
        " ReadLimits())\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print(failed.error_class, before, after)\n"
        "print(failed.message)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", reading, str(path)],
        capture_output=True, text=True, timeout=120, cwd=Path(__file__).parents[1],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    first, message = done.stdout.splitlines()[:2]
    error_class, before_kib, after_kib = first.split()
    assert error_class == "too_large" and "inflates to" in message, done.stdout
    assert int(after_kib) * 1024 < 2.5 * 1024**3  # the ceiling, imports included
    grown = (int(after_kib) - int(before_kib)) * 1024  # what reading the bomb took
    assert grown < 64 * 1024**2, grown  # not one of the inflated 128 MiB


@pytest.mark.parametrize(
    ("media_type", "data"),
    [
        ("text/markdown", b"\n\n".join(b"line %d" % n for n in range(50))),
        ("text/plain", b"\n\n".join(b"line %d" % n for n in range(50))),
        (DOCX, docx_with(body_of(b"<w:p><w:r><w:t>x</w:t></w:r></w:p>" * 50))),
    ],
)
def test_a_document_of_more_blocks_than_the_limit_is_too_complex(
    media_type: str, data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The limit is 2,000,000 blocks; 40 here, so the test reads 50 blocks, not millions."""
    monkeypatch.setattr(document_parsing, "MAX_BLOCKS", 40)
    [failed] = chunked_submission(submitted(data, media_type), data, count_tokens, T0,
                                  ReadLimits())  # fmt: skip
    assert isinstance(failed, DocumentFailed)
    assert failed.error_class == "too_complex", failed
    assert "blocks or more; the limit is 40" in failed.message


@pytest.mark.parametrize("document_id", ["..", ".", "../../evil", "a/../../b", "./.", "a/./b"])
def test_a_document_id_with_a_dot_segment_is_refused_naming_it(document_id: str) -> None:
    with pytest.raises(InvalidQuery, match=r"document_id: must not have a '\.' or '\.\.' segment"):
        submission("ana", b"# Notes", T0, max_bytes=1000, name="notes.md",
                   document_id=document_id)  # fmt: skip
    kept = submission("ana", b"# Notes", T0, max_bytes=1000, document_id="a.b/c..d/notes.md")
    assert kept.document_id == "a.b/c..d/notes.md"  # dots inside a segment are fine


def test_a_failure_names_the_error_never_the_document_s_words() -> None:
    """A parser's own message may quote the text it choked on; what the document's
    failure says is the error's class and a reason, none of the document's words."""
    secret = "the vault code is 8841"
    event = submitted(secret.encode(), "text/plain")
    failed = parser_failed(event, ValueError(f"unexpected token near {secret!r}"), T0, 1)
    assert failed.error_class == "corrupt" and "ValueError" in failed.message
    assert "8841" not in failed.message and "vault" not in failed.message
    deep = parser_failed(event, RecursionError(f"too deep at {secret}"), T0, 1)
    assert deep.error_class == "too_complex" and "8841" not in deep.message
