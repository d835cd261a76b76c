"""A griffe extension that turns the reST markup of cvxtop's docstrings into Markdown.

cvxtop's docstrings are written for reading in a terminal and in ``help()``: numpy-style
sections, ``double backticks`` for code (already valid Markdown) and Sphinx roles such as
``:func:`precision_at_k``` for cross-references. mkdocstrings renders docstrings as Markdown,
where a role would show up literally, so this extension rewrites, before rendering,

* each role ``:kind:`target``` (also ``:kind:`~target``` and ``:kind:`title <target>```) into
  an *optional* autorefs cross-reference: a link when the target is rendered somewhere in
  the site, plain code otherwise (so an unrendered or external target never fails the
  strict build);
* the reST literal-block marker ``text::`` into ``text:`` (the indented block after it is
  already a Markdown code block).

Targets are resolved to full paths the way a reader would: a path starting with ``cvxtop``
as written; otherwise the name looked up from the docstring's own scope outward (griffe's
``resolve``), then, failing that, the one public object of the package with that name.
Names outside cvxtop (``sklearn.metrics.roc_auc_score``, ``ValueError``) stay as written.

mkdocs.yml loads it with ``extensions: [docs/_ext/sphinx_roles.py]``; it changes no file.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from typing import Any

import griffe

ROLE = re.compile(
    r":(?:py:)?(?:func|meth|class|mod|attr|data|exc|obj|const):"
    r"`(?P<tilde>~?)(?P<body>[^`<]+?)(?:\s*<(?P<target>[^`>]+)>)?`"
)
LITERAL_MARKER = re.compile(r"(?<=\S)::[ \t]*$", flags=re.M)
LONE_LITERAL_MARKER = re.compile(r"^[ \t]*::[ \t]*$", flags=re.M)


def _walk(obj: griffe.Object):
    """The object and every member defined under it (aliases are visited where defined)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _walk(member)


class SphinxRoles(griffe.Extension):
    """Rewrite Sphinx roles and reST literal markers in every docstring of a package."""

    def on_package(self, *, pkg: griffe.Module, loader: Any = None, **kwargs: Any) -> None:
        objects = list(_walk(pkg))
        by_name: dict[str, list[str]] = defaultdict(list)
        for obj in objects:
            if not any(part.startswith("_") for part in obj.path.split(".")):
                by_name[obj.name].append(obj.path)
        for obj in objects:
            if obj.docstring is not None:
                obj.docstring.value = self.rewrite(obj, obj.docstring.value, pkg.name, by_name)

    def rewrite(self, obj: griffe.Object, text: str, package: str,
                by_name: dict[str, list[str]]) -> str:
        def replace(match: re.Match) -> str:
            written = (match["target"] or match["body"]).strip()
            title = match["body"].strip()
            if match["tilde"]:
                title = title.rsplit(".", 1)[-1]
            identifier = self.resolve(obj, written, package, by_name)
            return (f'<autoref identifier="{html.escape(identifier)}" optional>'
                    f"<code>{html.escape(title)}</code></autoref>")

        text = ROLE.sub(replace, text)
        text = LONE_LITERAL_MARKER.sub("", text)
        return LITERAL_MARKER.sub(":", text)

    @staticmethod
    def resolve(obj: griffe.Object, name: str, package: str,
                by_name: dict[str, list[str]]) -> str:
        if name == package or name.startswith(package + "."):
            return name
        head, _, rest = name.partition(".")
        try:
            path = obj.resolve(head)
        except griffe.NameResolutionError:
            path = SphinxRoles.inherited(obj, head) or SphinxRoles.unique(head, by_name)
            if path is None:
                return name
        return f"{path}.{rest}" if rest else path

    @staticmethod
    def inherited(obj: griffe.Object, name: str) -> str | None:
        """``name`` as a member a class in the docstring's scope inherits."""
        scope: griffe.Object | None = obj
        while scope is not None:
            if scope.is_class and name in scope.all_members:
                return f"{scope.path}.{name}"
            scope = scope.parent
        return None

    @staticmethod
    def unique(name: str, by_name: dict[str, list[str]]) -> str | None:
        """The path of the one public object of the package called ``name``, if unique."""
        candidates = by_name.get(name, [])
        return candidates[0] if len(candidates) == 1 else None
