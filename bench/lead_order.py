"""The terms of a formula `perfmodel discover` prints, and each parameter's
lead-order term as Extra-P's evaluation scores it (issue 35): the term that
dominates as the parameter grows, i.e. the largest polynomial exponent of it
among the terms, then the largest log2 exponent. Switches ([n > 4]), level()
and the coefficients are bounded as the parameter grows: they do not count,
except that a term switched off above a value ([n <= 16]) is no lead of n.

A term is a dict {parameter: (i, j)} for x^i * log2(x)^j, plus each switch's
text mapped to None; a parameter a term lacks is x^0 in it. Used by
bench/extrap_protocol.py and tests/discover_extrap.sh:
    lead_order.py lead FORMULA PARAM...   each parameter's lead, "p 1/3 2"
                                          for p^(1/3) * log2(p)^2
    lead_order.py same TRUTH FOUND        exit 0 when the two have the same
                                          terms, coefficients and C aside
"""
import re
import sys
from fractions import Fraction

_POWER = re.compile(r'^(\w+)\^\(?(-?\d+(?:\.\d+)?(?:/\d+)?)\)?$')
_LOG = re.compile(r'^log2\((\w+)\)(?:\^(\d+))?$')
_SWITCH = re.compile(r'^\[(\w+) (<=|>) [^]]+\]$')
# coefficients (named or numbers), a level's indicator, level()
_BOUNDED = re.compile(r'^(?:[cbC]\w*|\d+(?:\.\d*)?(?:e[-+]?\d+)?|\[.*\]|level\(.*\))$')


def exponent(text):
    """'1/3', '-0.25', '2' as a Fraction, so that 1/3 compares exactly."""
    return Fraction(text).limit_denominator(12)


def parse(formula):
    """The terms of formula, a list of {parameter: (i, j)}; ValueError on a
    factor this reader does not know (a fitted power of --refine, say)."""
    terms = []
    for text in formula.split(" + "):
        term = {}
        for factor in text.strip().split(" * "):
            m = _POWER.match(factor)
            if m:
                i, j = term.get(m.group(1), (Fraction(0), 0))
                term[m.group(1)] = (i + exponent(m.group(2)), j)
                continue
            m = _LOG.match(factor)
            if m:
                i, j = term.get(m.group(1), (Fraction(0), 0))
                term[m.group(1)] = (i, j + int(m.group(2) or 1))
                continue
            if _SWITCH.match(factor):
                term[factor] = None
            elif not _BOUNDED.match(factor):
                raise ValueError("factor '%s' of '%s'" % (factor, formula))
        terms.append(term)
    return terms


def lead(terms, param):
    """(i, j) of the term that grows fastest in param; (0, 0) when none moves."""
    off_above = re.compile(r'^\[%s <= ' % re.escape(param))
    return max((t.get(param, (Fraction(0), 0)) for t in terms
                if not any(off_above.match(k) for k in t)), default=(Fraction(0), 0))


def same(a, b):
    """a and b have the same terms (a term of coefficients alone is C)."""
    def shape(formula):
        return sorted(sorted(t.items(), key=str) for t in parse(formula) if t)
    return shape(a) == shape(b)


def text(ij):
    return "%s %d" % ij


if __name__ == "__main__":
    if sys.argv[1] == "same":
        sys.exit(0 if same(sys.argv[2], sys.argv[3]) else 1)
    found = parse(sys.argv[2])
    for p in sys.argv[3:]:
        print(p, text(lead(found, p)))
