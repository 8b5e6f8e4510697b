"""Every page a student's notebook reaches, inert: the feedback pages and formgrader's views.

Two layers, both applied wherever a graded or held notebook becomes a page:

- :func:`inert_notebook` keeps only what the course's pages need from a notebook and nothing
  that a template could turn into markup or a request: the notebook's metadata but its kernel
  and language names, cell metadata but nbgrader's (with a grade id of the characters nbgrader
  allows), the course's own and tags that are plain names, attachments but PNG and JPEG images,
  outputs but text and PNG/JPEG images, and no raw cell (shown as text instead). The autograde step
  (:class:`~roofline_grading.autograde.steps.plain_outputs.PlainOutputs`) applies it to the graded
  notebook; the exporters apply it again to whatever notebook they are handed.
- :func:`sanitize_html` passes the HTML a Markdown cell (or a grader's comment) becomes through
  bleach, with an allow-list of the tags and attributes nbconvert and MathML need: anything
  else a cell's Markdown holds is shown as text, never run.

:class:`InertHTMLExporter` is nbconvert's ``HTMLExporter`` with both; the feedback pages'
exporter (:mod:`roofline_grading.plugins.feedback`) and formgrader's
(:mod:`roofline_grading.plugins.formgrader`) are made from it. Student text is also escaped
where the course writes it (:mod:`roofline_grading.inert`); this is the second line.

>>> sanitize_html('<p>ok <img src=plot.png onerror="alert(1)"></p>')
'<p>ok <img src="plot.png"></p>'
>>> sanitize_html('<script>alert(1)</script>')
'&lt;script&gt;alert(1)&lt;/script&gt;'
"""

from __future__ import annotations

import copy
import functools
import html as html_lib
import re
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from jinja2 import pass_context
from jinja2.runtime import Context
from nbconvert.exporters import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from nbformat import from_dict

from roofline_grading.inert import as_text, plain

__all__ = [
    "SAFE_MIMETYPES",
    "InertHTMLExporter",
    "RememberedHighlights",
    "as_characters",
    "inert_notebook",
    "sanitize_html",
    "with_accessibility",
]

SAFE_MIMETYPES = frozenset({"text/plain", "image/png", "image/jpeg"})
"""The only output data a graded notebook keeps."""
GRADE_ID = re.compile(r"[A-Za-z0-9_.\-]{1,100}")
"""A grade id as nbgrader's own check allows it (letters, digits, ``_``, ``-``; ``.`` too)."""
_NAME = re.compile(r"[\w+.\-]{1,60}")
_CELL_KEYS = ("nbgrader", "roofline")

_HTML_TAGS = frozenset(
    {
        "a",
        "abbr",
        "b",
        "blockquote",
        "br",
        "caption",
        "code",
        "dd",
        "del",
        "details",
        "div",
        "dl",
        "dt",
        "em",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "img",
        "kbd",
        "li",
        "ol",
        "p",
        "pre",
        "s",
        "samp",
        "span",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "u",
        "ul",
    }
)
_MATHML_TAGS = frozenset(
    {
        "math",
        "semantics",
        "annotation",
        "mrow",
        "mi",
        "mo",
        "mn",
        "ms",
        "mtext",
        "mspace",
        "mfrac",
        "msqrt",
        "mroot",
        "msub",
        "msup",
        "msubsup",
        "munder",
        "mover",
        "munderover",
        "mmultiscripts",
        "mprescripts",
        "none",
        "mtable",
        "mtr",
        "mtd",
        "mstyle",
        "mpadded",
        "mphantom",
        "menclose",
        "merror",
    }
)
_MATHML_ATTRIBUTES = frozenset(
    {
        "display",
        "displaystyle",
        "scriptlevel",
        "mathvariant",
        "mathsize",
        "stretchy",
        "symmetric",
        "fence",
        "separator",
        "form",
        "lspace",
        "rspace",
        "largeop",
        "movablelimits",
        "accent",
        "accentunder",
        "minsize",
        "maxsize",
        "linethickness",
        "width",
        "height",
        "depth",
        "voffset",
        "encoding",
        "columnalign",
        "rowalign",
        "columnspacing",
        "rowspacing",
        "columnlines",
        "rowlines",
        "frame",
        "notation",
    }
)
_STYLES = ("text-align", "justify-items", "padding-left", "padding-right", "padding-top", "padding-bottom")
_IMAGE_SOURCE = re.compile(r"data:image/(png|jpeg|gif);base64,[A-Za-z0-9+/=\s]*|[\w./-]+\.(png|jpe?g|gif)")


def _allowed(tag: str, name: str, value: str) -> bool:
    """Whether bleach keeps the attribute ``name`` of ``tag``: only what text, tables, code, images
    and math need; a link only to a place on the page or the web, an image only from data or a file."""
    if name in ("class", "id", "title", "style"):
        return True
    if tag == "a":
        return name == "href" and re.match(r"(#|https?://|mailto:)", value) is not None
    if tag == "img":
        return name == "alt" or (name == "src" and _IMAGE_SOURCE.fullmatch(value) is not None)
    if tag in ("td", "th"):
        return name in ("align", "colspan", "rowspan")
    return tag in _MATHML_TAGS and name in _MATHML_ATTRIBUTES


def sanitize_html(html: str) -> str:
    """``html`` with every tag and attribute but those :func:`_allowed` escaped or dropped (bleach):
    a script, an event handler, a style sheet, a frame or a form shows as text, or goes."""
    import bleach
    from bleach.css_sanitizer import CSSSanitizer

    return str(
        bleach.clean(
            html,
            tags=_HTML_TAGS | _MATHML_TAGS,
            attributes=_allowed,
            protocols=frozenset({"http", "https", "mailto", "data"}),
            css_sanitizer=CSSSanitizer(allowed_css_properties=_STYLES),
            strip=False,
            strip_comments=True,
        )
    )


def inert_notebook(nb: Any) -> Any:
    """``nb`` (changed in place, and returned) with nothing a template can make markup of: see the
    module's docstring.

    >>> import nbformat
    >>> cell = nbformat.v4.new_raw_cell("<b>hi</b>", metadata={"raw_mimetype": "text/html", "tags": ["x"]})
    >>> nb = nbformat.v4.new_notebook(cells=[cell], metadata={"widgets": {}, "title": "<b>"})
    >>> inert_notebook(nb).cells[0].cell_type, dict(nb.metadata), dict(nb.cells[0].metadata)
    ('markdown', {}, {})
    """
    metadata = nb.get("metadata", {})
    kept: dict[str, Any] = {}
    for key, fields in (("kernelspec", ("name", "language")), ("language_info", ("name", "pygments_lexer"))):
        entry = metadata.get(key)
        if isinstance(entry, dict) and isinstance(entry.get("name"), str) and _NAME.fullmatch(entry["name"]):
            kept[key] = {f: v for f in fields if isinstance(v := entry.get(f), str) and _NAME.fullmatch(v)}
    if "kernelspec" in kept:  # nbformat requires a display name: shown nowhere, kept plain
        kept["kernelspec"]["display_name"] = plain(str(metadata["kernelspec"].get("display_name", "")), 60)
    if isinstance(metadata.get("roofline"), dict):
        kept["roofline"] = metadata["roofline"]
    nb.metadata = from_dict(kept)
    for index, cell in enumerate(nb.get("cells", [])):
        nb.cells[index] = _inert_cell(cell)
    return nb


def _inert_cell(cell: Any) -> Any:
    if cell.get("cell_type") == "raw":
        from nbformat.v4 import new_markdown_cell

        shown = new_markdown_cell(as_text(str(cell.get("source", ""))))
        if isinstance(cell.get("id"), str):
            shown.id = cell.id  # the same id (a graded notebook is the same, byte for byte, each time)
        else:
            shown.pop("id", None)
        cell = shown
    metadata = cell.get("metadata", {})
    kept = {key: metadata[key] for key in _CELL_KEYS if isinstance(metadata.get(key), dict)}
    grade_id = kept.get("nbgrader", {}).get("grade_id")
    if grade_id is not None and not (isinstance(grade_id, str) and GRADE_ID.fullmatch(grade_id)):
        del kept["nbgrader"]
    tags = metadata.get("tags")
    if isinstance(tags, list) and tags:  # class names on the page (the release's raises-exception)
        kept["tags"] = [t for t in tags if isinstance(t, str) and _NAME.fullmatch(t)]
    cell.metadata = from_dict(kept)
    if "attachments" in cell:
        attachments = cell.get("attachments") or {}
        images = {
            name: {k: v for k, v in data.items() if k in ("image/png", "image/jpeg")}
            for name, data in attachments.items()
            if isinstance(data, dict)
        }
        cell.attachments = {name: image for name, image in images.items() if image}
    if cell.get("cell_type") == "code":
        cell.outputs = [_inert_output(o) for o in cell.get("outputs", []) if isinstance(o, dict)]
    return cell


def _inert_output(output: Any) -> Any:
    if output.get("output_type") in ("display_data", "execute_result"):
        output["data"] = {k: v for k, v in output.get("data", {}).items() if k in SAFE_MIMETYPES}
        output["metadata"] = {}
    return output


NO_DESCRIPTION = "No description has been provided for this image"
"""What nbconvert's exporter gives an image without alternative text, so that a reader hears it."""
FOCUSABLE = frozenset({"jp-Cell-inputWrapper", "jp-OutputArea-output"})
"""The classes of the lab template's inputs and outputs, which a keyboard reaches (``tabindex``)."""
_TAG = re.compile(r"<(img|div)\b[^>]*>")
_CLASS = re.compile(r'\sclass="([^"]*)"')
_ALT = re.compile(r"\salt\s*=")
_RAW_TEXT = re.compile(
    r"(<script\b.*?</script\s*>|<style\b.*?</style\s*>|<!--.*?-->)", re.DOTALL | re.IGNORECASE
)
_REFERENCE = re.compile(r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def as_characters(html: str) -> str:
    """``html`` with each character reference to a character outside ASCII written as the character
    itself, as nbconvert's second parse of the page wrote it: nbconvert's Markdown writes a heading
    as references (``&#50672;&#49845;`` for 연습), and a Korean page should read as Korean in its
    file too. A reference to an ASCII character (``&lt;``, ``&amp;``, ``&#39;``) stays as it is, so
    nothing that was text can become markup. Scripts, styles and comments, where a reference is not
    one, are left as they are.

    >>> as_characters("<h1>&#50672;&#49845; &amp; &#182; &lt;b&gt; &#60;</h1><script>'&#193;'</script>")
    "<h1>연습 &amp; ¶ &lt;b&gt; &#60;</h1><script>'&#193;'</script>"
    """

    def character(found: re.Match[str]) -> str:
        written = html_lib.unescape(found.group(0))
        return written if len(written) == 1 and ord(written) > 127 else found.group(0)

    parts = _RAW_TEXT.split(html)  # odd parts: the scripts, styles and comments
    return "".join(part if i % 2 else _REFERENCE.sub(character, part) for i, part in enumerate(parts))


def with_accessibility(html: str) -> tuple[str, int]:
    """``html`` with the attributes nbconvert's ``HTMLExporter`` adds to a page it has written: an
    image without alternative text gets :data:`NO_DESCRIPTION`, the lab template's inputs and
    outputs ``tabindex="0"``; and how many images had no description. Only the template's own
    tags can be found here: a student's text reaches the page escaped, and a Markdown cell's HTML
    is sanitized (a ``>`` in a value written as ``&gt;``).

    >>> with_accessibility('<div class="jp-Cell-inputWrapper"><img src="a.png"/><img alt="x">')
    ('<div class="jp-Cell-inputWrapper" tabindex="0"><img src="a.png" alt="No description has been \
provided for this image"/><img alt="x">', 1)
    """
    undescribed = 0

    def add(found: re.Match[str]) -> str:
        nonlocal undescribed
        tag = found.group(0)
        end = "/>" if tag.endswith("/>") else ">"
        if found.group(1) == "img" and not _ALT.search(tag):
            undescribed += 1
            return f'{tag[: -len(end)].rstrip()} alt="{NO_DESCRIPTION}"{end}'
        classes = _CLASS.search(tag)
        if found.group(1) == "div" and classes and FOCUSABLE & set(classes.group(1).split()):
            return f'{tag[: -len(end)].rstrip()} tabindex="0"{end}'
        return tag

    return _TAG.sub(add, html), undescribed


class RememberedHighlights:
    """Code cells as a highlighter writes them in HTML, each written once: the pages of a class
    repeat the release's cells (the known-mistakes check alone is some 20 KB of code), and
    highlighting them took most of a feedback page's time. At most ``size`` cells are kept, the
    least recently shown dropped first.

    >>> remembered = RememberedHighlights(size=1)
    >>> shout = remembered.of(lambda source, language=None, metadata=None: source.upper(), "python")
    >>> shout("x = 1"), shout("x = 1"), len(remembered.made)
    ('X = 1', 'X = 1', 1)
    """

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.made: OrderedDict[tuple[Any, ...], str] = OrderedDict()

    def of(self, highlight: Callable[..., str], which: object) -> Callable[..., str]:
        """``highlight`` (a filter ``highlight_code``; ``which`` tells it from another), remembered."""

        def remembered(source: str, language: str | None = None, metadata: Any = None) -> str:
            magics = (metadata or {}).get("magics_language")  # the only part of the metadata it reads
            key = (which, source, language, magics if isinstance(magics, str) else repr(magics))
            if key in self.made:
                self.made.move_to_end(key)
                return self.made[key]
            html = self.made[key] = highlight(source, language, metadata)
            if len(self.made) > self.size:
                self.made.popitem(last=False)
            return html

        return remembered


class InertHTMLExporter(HTMLExporter):
    """nbconvert's HTML exporter with :func:`inert_notebook` applied to the notebook and
    :func:`sanitize_html` to the HTML of every Markdown text (see the module's docstring)."""

    def from_notebook_node(  # type: ignore[override]
        self, nb: Any, resources: dict[str, Any] | None = None, **kw: Any
    ) -> tuple[str, dict[str, Any]]:
        """The page of ``nb``, made inert: the page ``HTMLExporter`` writes, made faster. That
        exporter parses its whole page again (BeautifulSoup) to add two attributes, and highlights
        every code cell anew: for a class's feedback pages, about 40 % and 50 % of the time. Here
        the template's filters are set as ``HTMLExporter`` sets them, the release's cells are
        highlighted once (:class:`RememberedHighlights`), and :func:`with_accessibility` adds the
        attributes to the tags the template wrote."""
        nb = inert_notebook(copy.deepcopy(nb))
        resources = self._init_resources(resources)
        language = nb.metadata.get("language_info", {})
        lexer = language.get("pygments_lexer", language.get("name"))
        highlight = self.filters.get("highlight_code")  # an instructor's own, as configured
        if highlight is None:
            highlight = self._highlighted.of(Highlight2HTML(pygments_lexer=lexer, parent=self), lexer)
        self.register_filter("highlight_code", highlight)
        self.register_filter(
            "filter_data_type",
            WidgetsDataTypeFilter(notebook_metadata=self._nb_metadata, parent=self, resources=resources),
        )
        html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
        page, undescribed = with_accessibility(as_characters(html))
        if undescribed:
            self.log.warning("Alternative text is missing on %s image(s).", undescribed)
        return page, resources

    @functools.cached_property
    def _highlighted(self) -> RememberedHighlights:
        return RememberedHighlights()

    @pass_context
    def markdown2html(self, context: Context, source: str) -> str:
        """Markdown to HTML (:meth:`markdown_html`), sanitized."""
        return sanitize_html(self.markdown_html(context, source))

    def markdown_html(self, context: Context, source: str) -> str:
        """Markdown to HTML, as nbconvert's exporter writes it (a subclass may write it otherwise)."""
        return str(HTMLExporter.markdown2html(self, context, source))
