"""The students' feedback pages, standing alone: math as MathML, written when the page is made.

``make feedback`` (``nbgrader generate_feedback``) writes each page with nbconvert's
``HTMLExporter`` and nbgrader's ``feedback`` template. That template inlines its styles but
loads MathJax from a CDN to typeset the TeX of the Markdown cells, so a page opened offline, or
where the CDN is blocked, shows raw TeX and fails a request. The course's configuration
(``nbgrader_config.py``) has nbgrader write the pages with :class:`FeedbackExporter` instead:
the same template and styles, with each formula of a Markdown cell (``$...$``, ``$$...$$``,
``\\(...\\)``, ``\\[...\\]``, ``\\begin{align}...``, as nbconvert finds them) converted to
MathML Core by math-core, and no MathJax script. Browsers lay MathML out themselves (Chromium
109 and later, Firefox, Safari), so a page loads nothing from anywhere and weighs what it did.

Student-written Markdown reaches the page as text
(:class:`~roofline_grading.autograde.steps.plain_outputs.PlainOutputs`), and so do outputs (no
``text/latex``): the formulas are the release's and nbgrader's comments'.
A formula math-core cannot convert is shown as its TeX, in code, and named in nbgrader's log.
The exporter is the course's inert one (:class:`~roofline_grading.pages.InertHTMLExporter`): the
notebook is stripped of what a template could make markup of, and the HTML of every Markdown text,
MathML included, passes bleach's sanitizer before it reaches the page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jinja2 import BaseLoader, DictLoader
from jinja2.runtime import Context
from math_core import LatexError, LatexToMathML
from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath
from traitlets import default

from roofline_grading.pages import InertHTMLExporter

__all__ = ["FeedbackExporter", "MathMLRenderer", "to_mathml"]

_STRICT = LatexToMathML(annotation=True, fancy_error=False)
"""Each formula as MathML Core, its TeX kept in an ``<annotation>`` (not shown); a one-line error."""
_LENIENT = LatexToMathML(annotation=True, continue_on_error=True)
"""The same, but a formula it cannot convert becomes its TeX in ``<code>`` (with the reason as a title)."""

# nbconvert's templates take their MathJax script and its configuration from this macro
# (nbgrader's feedback template calls it with no URL, so HTMLExporter.mathjax_url has no say):
# the exporter's own loader, tried first, puts in its place a style for display math.
NO_MATHJAX = """\
{%- macro mathjax(url="") -%}
<!-- Math: MathML written with the page (roofline_grading.plugins.feedback), no MathJax -->
<style type="text/css">
math[display="block"] {
  margin: 1em 0;
  overflow-x: auto;
  overflow-y: hidden;
}
</style>
{%- endmacro %}
"""


def to_mathml(tex: str, *, display: bool, converter: LatexToMathML = _STRICT) -> str:
    """``tex`` (a formula without its ``$`` delimiters) as a MathML ``<math>`` element.

    Raises :class:`math_core.LatexError` if the formula cannot be converted.

    >>> print(to_mathml("x", display=False))
    <math><semantics><mi>x</mi><annotation encoding="application/x-tex">x</annotation></semantics></math>
    """
    return converter.convert_with_global_state(tex, displaystyle=display)


class MathMLRenderer(IPythonRenderer):
    """nbconvert's Markdown renderer, writing each formula as MathML instead of TeX for MathJax.

    A formula that cannot be converted is shown as its TeX, and ``failed`` is told (the formula,
    the reason).
    """

    def __init__(self, *, failed: Callable[[str, str], None] | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.failed = failed

    def _math(self, tex: str, display: bool) -> str:
        try:
            return to_mathml(tex, display=display)
        except LatexError as error:
            if self.failed is not None:
                self.failed(tex, str(error))
            return to_mathml(tex, display=display, converter=_LENIENT)

    def inline_math(self, body: str) -> str:
        return self._math(body, False)

    def block_math(self, body: str) -> str:
        return self._math(body, True)

    def latex_environment(self, name: str, body: str) -> str:
        return self._math(f"\\begin{{{name}}}{body}\\end{{{name}}}", True)


class FeedbackExporter(InertHTMLExporter):
    """nbconvert's HTML exporter as nbgrader's GenerateFeedback uses it (template ``feedback``),
    inert (:class:`~roofline_grading.pages.InertHTMLExporter`), with MathML for the Markdown
    cells' math and no MathJax (see the module's docstring)."""

    @default("extra_loaders")
    def _extra_loaders_default(self) -> list[BaseLoader]:
        return [DictLoader({"mathjax.html.j2": NO_MATHJAX})]

    def from_notebook_node(  # type: ignore[override]
        self, nb: Any, resources: dict[str, Any] | None = None, **kw: Any
    ) -> tuple[str, dict[str, Any]]:
        _STRICT.reset_global_state()  # equations are numbered from (1) on each page, as MathJax did
        _LENIENT.reset_global_state()
        return super().from_notebook_node(nb, resources, **kw)

    def markdown_html(self, context: Context, source: str) -> str:
        """Markdown to HTML, as ``HTMLExporter.markdown2html`` does, with math as MathML (the
        inert exporter sanitizes it)."""
        cell = context.get("cell", {})
        resources = context.get("resources", {})
        metadata = resources.get("metadata", {})
        notebook = f"{metadata.get('path', '')}/{metadata.get('name', '')}.ipynb"

        def failed(tex: str, reason: str) -> None:
            self.log.warning("%s: a formula shown as TeX, not as math (%s): %s", notebook, reason, tex)

        renderer = MathMLRenderer(
            failed=failed,
            escape=False,
            attachments=cell.get("attachments", {}),
            embed_images=self.embed_images,
            path=metadata.get("path", ""),
            anchor_link_text=self.anchor_link_text,
            exclude_anchor_links=self.exclude_anchor_links,
            **self.lexer_options,
        )
        return str(MarkdownWithMath(renderer=renderer).render(source))
