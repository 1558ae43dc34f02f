"""The package is typed (PEP 561): a py.typed marker beside it (the wheel carries it), and every
public function annotated in every parameter and its return, with annotations that resolve."""

import inspect
import os
import typing

import pytest

import themis


def test_py_typed_marker():
    assert os.path.exists(os.path.join(os.path.dirname(themis.__file__), "py.typed"))


@pytest.mark.parametrize("name", [n for n in themis.__all__ if callable(getattr(themis, n))
                                  and not inspect.isclass(getattr(themis, n))])
def test_public_functions_are_annotated(name):
    fn = getattr(themis, name)
    sig = inspect.signature(fn)
    for p in sig.parameters.values():
        assert p.annotation is not inspect.Parameter.empty, (name, p.name)
    assert sig.return_annotation is not inspect.Signature.empty, name
    # "pandas.DataFrame" is imported for type checkers only; resolve it as they would
    ns = dict(vars(inspect.getmodule(fn)))
    ns["pandas"] = pytest.importorskip("pandas")
    hints = typing.get_type_hints(fn, globalns=ns)
    assert set(hints) == set(sig.parameters) | {"return"}


def test_error_is_typed():
    hints = typing.get_type_hints(themis.Error.__init__)
    assert hints == {"message": str, "code": int, "return": type(None)}
