"""A Model as a notebook shows it (docs/python.md): its formula, parameter
table, accuracy and warnings as an HTML fragment, with perfmodel report's
plots of the rows it was fitted to inline (the library draws them)."""

import html


def _text(s):
    """s as an element's text (quotes as they are: only attributes need them
    escaped)."""
    return html.escape(s, quote=False)

# Above this many rows the plots (a mark per row) stay out of the fragment:
# a notebook cell would carry megabytes of SVG; Model.report draws them.
INLINE_PLOT_ROWS = 5000

# the report's plots the fragment shows: predicted against measured, and
# the scaling (speedup, efficiency, predicted target against an input)
_SHOWN = ("predicted_vs_measured", "speedup_", "efficiency_", "time_", "target_")


def _number(x):
    """A number as a cell: 6 significant digits, the exact value on hover."""
    if x is None or x != x:
        return "<td></td>"
    return f'<td title="{x!r}">{x:.6g}</td>'


def _table(head, rows):
    out = ["<table><tr>", *(f"<th>{_text(h)}</th>" for h in head), "</tr>"]
    for name, cells in rows:
        out += ["<tr>", f"<th>{_text(name)}</th>", *cells, "</tr>"]
    return "".join(out + ["</table>"])


def equation(model):
    """The model's formula as it is written, or the additive form's name."""
    return model.formula or "additive (eq. 4.4)"


def _parameters(model):
    seeds = any(s == s for s in model.params_std.values())
    head = ["parameter", "value"] + (["± std"] if seeds else [])
    return _table(head, [(k, [_number(v)] + ([_number(model.params_std[k])] if seeds else []))
                         for k, v in model.params.items()])


def _accuracy(model):
    rows = [(f"{part} rows", [f"<td>{m['rows']}</td>", _number(m["mape"]), _number(m["r2"]),
                              _number(m["mae"]), _number(m["rmse"])])
            for part, m in model.metrics.items() if m]
    return _table(["", "rows", "MAPE %", "R²", "MAE", "RMSE"], rows) if rows else ""


def _plots(model):
    rows = model._c._rows()
    if rows is None:
        return "<p>(a loaded model: <code>report(path, data)</code> draws its plots)</p>"
    if rows > INLINE_PLOT_ROWS:
        return (f"<p>({rows} rows: too many to draw here; <code>report(path)</code> draws "
                "them)</p>")
    figures = [f"<figure style='display:inline-block;margin:0'>{svg}</figure>"
               for name, _, svg in model._c._plots(None, None) if name.startswith(_SHOWN)]
    return "<div>" + "".join(figures) + "</div>"


def model_html(model):
    """Model._repr_html_'s fragment."""
    warnings = "".join(f"<li>{_text(w)}</li>" for w in model.warnings)
    return "".join([
        "<div class='perfmodel-model'>",
        f"<p><b>perfmodel.Model</b>: <code>{_text(model.target)}</code> ~ "
        f"<code>{_text(equation(model))}</code></p>",
        _parameters(model), _accuracy(model),
        f"<p>Warnings:</p><ul>{warnings}</ul>" if warnings else "",
        _plots(model), "</div>"])


def model_repr(model):
    """Model.__repr__: the target, the formula, the parameters' count and the
    training MAPE."""
    train = model.metrics["training"]
    mape = f", training MAPE {train['mape']:.3g} %" if train else ""
    return (f"<perfmodel.Model {model.target} ~ {equation(model)}: {len(model.params)} "
            f"parameters{mape}>")
