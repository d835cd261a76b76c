"""Declared parameters: one table per estimator, checked once when ``fit`` starts.

Each estimator (:class:`cvxtop.TopRanker`, :class:`cvxtop.AATP`, the Predtron learners)
lists its parameters in a :class:`ParameterTable`, in the manner of scikit-learn's
``_parameter_constraints``: each :class:`Param` names the check of :mod:`cvxtop._validation`
that validates its value (raising ``ValueError`` or ``TypeError`` that names the
parameter) and the choices of the estimator's method parameter (``solver``) that read it.
The defaults are the constructor's: the table reads them from its signature, so they live
in one place.

``check_params()`` validates every row and returns the checked values; a parameter set
away from its default that the chosen method does not read is reported with an
:class:`IgnoredParameterWarning` (or refused, for rows marked ``refuse_ignored``), so a
setting never does nothing silently. docs/architecture.md ("Where a parameter is
checked") renders the tables.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Callable

from ._validation import check_choice

__all__ = ["Param", "ParameterTable", "IgnoredParameterWarning", "choice", "optional",
           "positive_int", "keyword_only", "renamed_keyword"]


class IgnoredParameterWarning(UserWarning):
    """A parameter was set away from its default, but the chosen method does not read it."""


@dataclass(frozen=True)
class Param:
    """One parameter: its check, what it accepts, and which methods read it.

    ``check(value, name)`` returns the validated value (``None``: the value is passed on
    unchanged, to be checked where it is used, which ``accepts`` says). ``read_by`` lists
    the values of the parameter ``chosen_by`` (the table's method parameter unless given)
    that use it; ``None``: every method reads it. With ``refuse_ignored``, setting it for
    another method is a ``ValueError`` instead of a warning.
    """

    name: str
    accepts: str
    check: Callable[[Any, str], Any] | None = None
    read_by: tuple[Any, ...] | None = None
    chosen_by: str | None = None
    refuse_ignored: bool = False


def choice(options: tuple) -> Callable[[Any, str], Any]:
    """The check of a parameter that takes one of ``options``."""
    return lambda value, name: check_choice(value, name, options)


def optional(check: Callable[[Any, str], Any]) -> Callable[[Any, str], Any]:
    """``check``, with ``None`` accepted as it is."""
    return lambda value, name: None if value is None else check(value, name)


def positive_int(value: Any, name: str) -> int:
    """An integer ≥ 1 (``bool`` refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def _is_default(value: Any, default: Any) -> bool:
    if value is default:
        return True
    if isinstance(value, bool) != isinstance(default, bool) or value is None or default is None:
        return False
    try:
        return bool(value == default)
    except (TypeError, ValueError):  # arrays and other values without one truth value
        return False


@functools.cache
def _constructor_defaults(estimator_class: type) -> tuple[tuple[str, Any], ...]:
    """``(name, default)`` of the parameters of ``estimator_class.__init__`` that have one,
    read once per class (every fit checks its parameters against them)."""
    signature = inspect.signature(estimator_class.__init__)
    return tuple((name, p.default) for name, p in signature.parameters.items()
                 if p.default is not inspect.Parameter.empty)


@dataclass(frozen=True)
class ParameterTable:
    """The parameters of an estimator class; ``method`` names the parameter that chooses
    the method (its value selects the rows that apply; ``None`` for an estimator with one
    method, whose conditional rows name their ``chosen_by``)."""

    method: str | None
    params: tuple[Param, ...]
    #: Former names of parameters (old name to new), still accepted by the constructor
    #: (:func:`renamed_keyword`) and in model files written before the rename.
    renamed: tuple[tuple[str, str], ...] = ()

    def with_current_names(self, params: dict[str, Any]) -> dict[str, Any]:
        """``params`` with former names replaced by the current ones (a model file's)."""
        renamed = dict(self.renamed)
        current = {renamed.get(name, name): value for name, value in params.items()}
        if len(current) < len(params):
            raise ValueError(f"holds a parameter under its former and its current name "
                             f"({', '.join(f'{a} and {b}' for a, b in self.renamed)})")
        return current

    def extended(self, *params: Param) -> "ParameterTable":
        """This table with more rows (a subclass's parameters)."""
        return ParameterTable(self.method, self.params + params, self.renamed)

    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def reads(self, name: str, method: Any) -> bool:
        """Whether the method ``method`` (a value of the row's chooser) reads ``name``."""
        row = next(p for p in self.params if p.name == name)
        return row.read_by is None or method in row.read_by

    def defaults(self, estimator_class: type) -> dict[str, Any]:
        """The constructor's defaults (the one place they are written)."""
        return dict(_constructor_defaults(estimator_class))

    def check(self, estimator: Any) -> dict[str, Any]:
        """Validate every parameter of ``estimator``; return the checked values. A
        parameter the chosen method does not read, set away from its default, raises
        (``refuse_ignored``) or warns with :class:`IgnoredParameterWarning`."""
        values = {}
        for p in self.params:
            value = getattr(estimator, p.name)
            values[p.name] = value if p.check is None else p.check(value, p.name)
        defaults = self.defaults(type(estimator))
        for p in self.params:
            if p.read_by is None or p.name not in defaults:
                continue
            chooser = p.chosen_by or self.method
            method = values[chooser]
            if method in p.read_by:
                continue
            if _is_default(getattr(estimator, p.name), defaults[p.name]):
                continue
            readers = " or ".join(repr(m) for m in p.read_by)
            message = (f"{p.name} is read with {chooser}={readers} only; "
                       f"{chooser}={method!r} does not use it")
            if p.refuse_ignored:
                raise ValueError(message)
            warnings.warn(message, IgnoredParameterWarning, stacklevel=3)
        return values

    def markdown(self, estimator_class: type) -> str:
        """The table as markdown: parameter, default, what it accepts, which methods read
        it (docs/architecture.md shows these; a test keeps them equal)."""
        defaults = self.defaults(estimator_class)
        lines = [f"| `{estimator_class.__name__}` parameter | default | accepts | read when |",
                 "|---|---|---|---|"]
        for p in self.params:
            chooser = p.chosen_by or self.method
            readers = "always" if p.read_by is None else " or ".join(
                f"`{chooser}={m!r}`" for m in p.read_by)
            lines.append(f"| `{p.name}` | `{defaults.get(p.name)!r}` | {p.accepts} | "
                         f"{readers} |")
        return "\n".join(lines)


def keyword_only(init: Callable[..., None]) -> Callable[..., None]:
    """Mark an estimator's ``__init__`` whose parameters after the leading positional ones
    are keyword-only (``def __init__(self, surrogate="prec@k-avg", *, k=0.25, ...)``): a
    call that still passes those positionally works, with a ``FutureWarning`` naming
    them (positional use will become a ``TypeError``)."""
    parameters = list(inspect.signature(init).parameters.values())[1:]
    leading = [p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
    keyword = [p.name for p in parameters if p.kind is p.KEYWORD_ONLY]

    @functools.wraps(init)
    def wrapped(self: Any, *args: Any, **kwargs: Any) -> None:
        extra = args[len(leading):]
        if extra:
            if len(extra) > len(keyword):
                raise TypeError(f"{type(self).__name__}() takes at most {len(leading)} "
                                f"positional arguments, got {len(args)}")
            names = keyword[:len(extra)]
            twice = [n for n in names if n in kwargs]
            if twice:
                raise TypeError(f"{type(self).__name__}() got multiple values for "
                                f"{', '.join(twice)}")
            warnings.warn(f"pass {', '.join(names)} to {type(self).__name__} by keyword "
                          f"({', '.join(f'{n}=...' for n in names)}); positional use is "
                          "deprecated and will become an error", FutureWarning, stacklevel=2)
            kwargs.update(zip(names, extra))
        init(self, *args[:len(leading)], **kwargs)

    return wrapped


def renamed_keyword(old: str, new: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A function whose keyword ``old`` is now called ``new`` (the glossary's name,
    docs/architecture.md): ``old=...`` still works, with a ``FutureWarning``."""

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        name = function.__qualname__.removesuffix(".__init__")

        @functools.wraps(function)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if old in kwargs:
                if new in kwargs:
                    raise TypeError(f"{name}() got both {old} and {new} (pass {new} only)")
                warnings.warn(f"{name}({old}=...) is now {new}=...; {old} is deprecated and "
                              "will be removed", FutureWarning, stacklevel=2)
                kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        return wrapped

    return decorate
