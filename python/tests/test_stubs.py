"""The type hints (perfmodel/__init__.pyi, installed with py.typed) say what
the package has: every public name, each function's and method's
parameters and defaults as the code has them, and every attribute a model
carries. No type checker is installed here; this reads the stub with ast."""
import ast
import inspect
import os

import perfmodel


def stub():
    path = os.path.join(os.path.dirname(perfmodel.__file__), "__init__.pyi")
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read())


def params(fn):
    """(name, default as source text or None) of an ast function's parameters."""
    a = fn.args
    names = [p.arg for p in a.args]
    defaults = [None] * (len(a.args) - len(a.defaults)) + [ast.unparse(d) for d in a.defaults]
    out = list(zip(names, defaults))
    if a.kwarg:
        out.append(("**" + a.kwarg.arg, None))
    return [p for p in out if p[0] != "self"]


def real(fn):
    """The same of the code's fn; a C function without a signature
    (cpu_count) takes none: it is called so."""
    if inspect.isbuiltin(fn) and not getattr(fn, "__text_signature__", None):
        fn()
        return []
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.name == "self":
            continue
        if p.kind is p.VAR_KEYWORD:
            out.append(("**" + p.name, None))
        else:
            out.append((p.name, None if p.default is p.empty else repr(p.default)))
    return out


def test_every_public_name_has_hints():
    tree = stub()
    named = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    named |= {t.target.id for t in tree.body if isinstance(t, ast.AnnAssign)}
    assert set(perfmodel.__all__) <= named


def test_functions_as_the_code_has_them():
    for fn in stub().body:
        if isinstance(fn, ast.FunctionDef):
            assert params(fn) == real(getattr(perfmodel, fn.name)), fn.name


def test_model_as_the_code_has_it(tmp_path):
    model = [n for n in stub().body if isinstance(n, ast.ClassDef) and n.name == "Model"][0]
    m = perfmodel.fit({"n": [1, 2, 4, 8, 16, 32], "t": [1.1, 2.0, 4.2, 7.9, 16.5, 31.0]},
                      target="t", intrinsic="n", form="additive", seed=1, threads=1,
                      intervals=False)
    for node in model.body:
        if isinstance(node, ast.AnnAssign):
            assert hasattr(m, node.target.id), node.target.id
        elif isinstance(node, ast.FunctionDef) and not any(
                isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
            assert params(node) == real(getattr(perfmodel.Model, node.name)), node.name
    public = {n for n in vars(m) if not n.startswith("_")}
    public |= {n for n in dir(perfmodel.Model) if not n.startswith("_")}
    hinted = {n.target.id if isinstance(n, ast.AnnAssign) else n.name for n in model.body
              if isinstance(n, (ast.AnnAssign, ast.FunctionDef))}
    assert public <= hinted, public - hinted
