"""`--record-where` filters: a small language over the columns of a run's games table, parsed and evaluated
here over numpy arrays. A filter is never handed to Python or pandas to evaluate, so an option cannot run code.

    filter      := or
    or          := and ("or" and)*
    and         := not ("and" not)*
    not         := "not" not | comparison
    comparison  := sum (("==" | "!=" | "<" | "<=" | ">" | ">=") sum)+   (a chain, as in Python: 3 < turns < 40)
                 | "(" filter ")"
    sum         := product (("+" | "-") product)*
    product     := unary ("*" unary)*
    unary       := "-" unary | COLUMN | NUMBER | STRING | "(" sum ")"

Numbers are whole (the games table holds integers only). Strings are quoted with " or ' and compare with the
dictionary columns (`bot_0 == "greedy"`), with == and != only. Arithmetic is exact: in int64 where the values
cannot overflow (so `score_0 - score_1 > 5` does not wrap on the int8 and uint8 columns), in Python integers
where they could (the uint64 `seed`).

No filter can exhaust Python's stack. A chain of `and`, `or`, comparisons, `+ -` or `*` is one node with many
parts (however long, up to MAX_LENGTH characters), not a tree as deep as the chain; parsing recurses only into
parentheses, `not` and unary minus, at most MAX_DEPTH of them in all (about FRAMES_PER_LEVEL frames each), and
evaluating a parsed filter recurses not at all (an explicit stack).
"""
import re

import numpy as np

MAX_LENGTH = 2000           # characters of a filter
MAX_DEPTH = 60              # nested parentheses, `not` and unary minus, together
FRAMES_PER_LEVEL = 7        # Python frames the parser takes per level of MAX_DEPTH (a parenthesis: _unary, _or,
                            # _and, _not, _comparison, _arithmetic of the sum and of its product): 420 at most,
                            # well inside Python's default limit of 1000
MAX_DIGITS = 20             # a number: enough for any uint64 seed
INT64 = (-2**63, 2**63 - 1)

INT, TEXT, BOOL = "number", "text", "condition"
COMPARISONS = ("==", "!=", "<=", ">=", "<", ">")
KEYWORDS = ("and", "or", "not")
EXAMPLE = 'e.g. score_0 > 10 and bot_0 == "greedy"'
_NAMED = {INT: "a number", TEXT: "text", BOOL: "a condition"}

_TOKEN = re.compile(r"""\s*(?:(?P<number>[0-9]+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<string>"[^"]*"|'[^']*')
                        |(?P<op>==|!=|<=|>=|<|>|\+|-|\*|\(|\)))""", re.VERBOSE)
_HINTS = {"@": "a filter has no @variables", ".": "a filter has no attributes, and its numbers are whole",
          "[": "a filter has no subscripts", "]": "a filter has no subscripts", "=": "compare with ==",
          "&": "use and", "|": "use or", "~": "use not", "!": "use not, or !=", "/": "arithmetic is + - * only",
          "%": "arithmetic is + - * only", ",": "a filter calls no function", '"': "a string is not closed",
          "'": "a string is not closed", "{": "a filter has no sets or dictionaries",
          "}": "a filter has no sets or dictionaries", "\\": "a filter has no escapes"}


class FilterError(ValueError):
    """A filter that does not parse, or names or compares what it cannot; the message is one line."""


def _shown(ch):
    return repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}"


class _Node:
    """A parsed piece of a filter: its kind, its type (number, text, condition), its parts, and where it stands
    in the filter's text (for messages)."""
    __slots__ = ("kind", "type", "parts", "value", "start", "end")

    def __init__(self, kind, type_, start, end, parts=(), value=None):
        self.kind, self.type, self.start, self.end, self.parts, self.value = kind, type_, start, end, parts, value


class Filter:
    """A parsed, type-checked filter over the columns `columns` (a dict: name -> "number" or "text")."""

    def __init__(self, text, columns):
        self.text = str(text)
        self.columns = dict(columns)
        if len(self.text) > MAX_LENGTH:
            raise FilterError(f"a filter is at most {MAX_LENGTH} characters, not {len(self.text)}")
        self._tokens = self._tokenize()
        self._i = 0
        self._depth = 0
        if not self._tokens:
            raise FilterError(f"the filter is empty ({EXAMPLE})")
        self.tree = self._or()
        if self._i < len(self._tokens):
            kind, value, at = self._tokens[self._i]
            raise FilterError(f"unexpected {value!r} at character {at + 1}"
                              + (": a filter calls no function" if value == "(" else f" ({EXAMPLE})"))
        self._want(self.tree, BOOL)
        self.used = sorted(self._names(self.tree))

    # ------------------------------------------------------------------------------------------- parsing
    def _tokenize(self):
        tokens, at, text = [], 0, self.text
        while True:
            while at < len(text) and text[at].isspace():
                at += 1
            if at >= len(text):
                return tokens
            m = _TOKEN.match(text, at)
            if m is None:
                ch = text[at]
                hint = _HINTS.get(ch)
                raise FilterError(f"unexpected character {_shown(ch)} at character {at + 1}"
                                  + (f": {hint}" if hint else f" ({EXAMPLE})"))
            kind = m.lastgroup
            tokens.append((kind, m.group(kind), m.start(kind)))
            at = m.end()

    def _peek(self):
        return self._tokens[self._i] if self._i < len(self._tokens) else (None, None, len(self.text))

    def _take(self, *values):
        kind, value, at = self._peek()
        if kind in ("op", "name") and value in values:
            self._i += 1
            return value, at
        return None

    def _nest(self):
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise FilterError(f"the filter is nested more than {MAX_DEPTH} deep (parentheses, `not` and unary "
                              "minus together)")

    def _or(self):
        parts = [self._and()]
        while self._take("or"):
            parts.append(self._and())
        return self._joined(parts, "or")

    def _and(self):
        parts = [self._not()]
        while self._take("and"):
            parts.append(self._not())
        return self._joined(parts, "and")

    def _joined(self, parts, word):
        """The conditions `parts` joined by `word` (and, or): one node of them all, however many (a long chain
        is a wide node, not a deep one); a single part is itself."""
        if len(parts) == 1:
            return parts[0]
        for p in parts:
            self._want(p, BOOL, f"`{word}` joins conditions")
        return _Node(word, BOOL, parts[0].start, parts[-1].end, tuple(parts))

    def _not(self):
        took = self._take("not")
        if took:
            self._nest()
            inner = self._not()
            self._depth -= 1
            self._want(inner, BOOL, "`not` takes a condition")
            return _Node("not", BOOL, took[1], inner.end, (inner,))
        return self._comparison()

    def _comparison(self):
        first = self._arithmetic(("+", "-"))
        parts, ops = [first], []
        while True:
            took = self._take(*COMPARISONS)
            if not took:
                break
            ops.append(took[0])
            parts.append(self._arithmetic(("+", "-")))
        if not ops:
            return first
        for op, a, b in zip(ops, parts, parts[1:]):
            for p in (a, b):
                if p.type == BOOL:
                    raise FilterError(f"{self._quote(p)} is a condition: {op} compares numbers or text "
                                      "(join conditions with and, or)")
            if a.type != b.type:
                raise FilterError(f"{self._quote(a)} {op} {self._quote(b)} compares {_NAMED[a.type]} with "
                                  f"{_NAMED[b.type]}"
                                  + (' (quote a name: bot_0 == "greedy")' if TEXT in (a.type, b.type) else ""))
            if a.type == TEXT and op not in ("==", "!="):
                raise FilterError(f"{self._quote(a)} {op} {self._quote(b)}: text compares with == and != only")
        return _Node("compare", BOOL, first.start, parts[-1].end, tuple(parts), tuple(ops))

    def _arithmetic(self, operators):
        """Terms joined by `operators`: products joined by + and - (`operators` ("+", "-")), or unary terms
        joined by * (("*",)). One "arith" node of all the terms, its operators in order (computed left to
        right), so that `turns + 1 + 1 ...` is a wide node, not a tree as deep as the chain (a chain of 1,000
        terms overflowed Python's stack). A sum calls its products directly: a level of parentheses costs
        FRAMES_PER_LEVEL frames."""
        sums = operators[0] == "+"
        first = self._arithmetic(("*",)) if sums else self._unary()
        parts, ops = [first], []
        while True:
            took = self._take(*operators)
            if not took:
                break
            ops.append(took[0])
            parts.append(self._arithmetic(("*",)) if sums else self._unary())
            for p in parts[-2:] if len(parts) == 2 else parts[-1:]:     # the first term once, then each
                self._want(p, INT, f"{took[0]} takes numbers")
        if not ops:
            return first
        return _Node("arith", INT, first.start, parts[-1].end, tuple(parts), tuple(ops))

    def _unary(self):
        took = self._take("-")
        if took:
            self._nest()
            inner = self._unary()
            self._depth -= 1
            self._want(inner, INT, "- takes a number")
            return _Node("neg", INT, took[1], inner.end, (inner,))
        kind, value, at = self._peek()
        if kind is None:
            raise FilterError(f"the filter ends where a column, a number or a string was expected ({EXAMPLE})")
        if kind == "op" and value == "(":
            self._i += 1
            self._nest()
            inner = self._or()
            self._depth -= 1
            if not self._take(")"):
                k, v, a = self._peek()
                raise FilterError(f"a '(' at character {at + 1} is not closed"
                                  + (f" (found {v!r} at character {a + 1})" if k else ""))
            return _Node(inner.kind, inner.type, at, self._tokens[self._i - 1][2] + 1, inner.parts, inner.value)
        self._i += 1
        if kind == "number":
            if len(value.lstrip("0")) > MAX_DIGITS:
                raise FilterError(f"the number at character {at + 1} has more than {MAX_DIGITS} digits")
            return _Node("number", INT, at, at + len(value), value=int(value))
        if kind == "string":
            return _Node("string", TEXT, at, at + len(value), value=value[1:-1])
        if kind == "name":
            if value in KEYWORDS:
                raise FilterError(f"unexpected {value!r} at character {at + 1} ({EXAMPLE})")
            if self._peek()[1] == "(" and self._peek()[0] == "op":
                raise FilterError(f"{value}( at character {at + 1}: a filter calls no function ({EXAMPLE})")
            if value not in self.columns:
                raise FilterError(f"unknown column {value!r} (columns: {', '.join(self.columns)})")
            return _Node("column", INT if self.columns[value] == INT else TEXT, at, at + len(value), value=value)
        raise FilterError(f"unexpected {value!r} at character {at + 1} ({EXAMPLE})")

    def _quote(self, node):
        text = self.text[node.start:node.end].strip()
        return repr(text if len(text) <= 60 else text[:59] + "…")

    def _want(self, node, type_, why=None):
        if node.type == type_:
            return
        if type_ == BOOL:
            raise FilterError(f"{self._quote(node)} is {_NAMED[node.type]}, not a condition (compare it: "
                              f"{EXAMPLE})")
        raise FilterError(f"{why}: {self._quote(node)} is {_NAMED[node.type]}")

    @staticmethod
    def _names(tree):
        """The columns `tree` reads (walked with an explicit stack: no recursion)."""
        names, stack = set(), [tree]
        while stack:
            node = stack.pop()
            if node.kind == "column":
                names.add(node.value)
            stack.extend(node.parts)
        return names

    # ---------------------------------------------------------------------------------------- evaluating
    def rows(self, table, n):
        """A boolean array: which of the `n` rows of `table` (a mapping: column name -> numpy array or pandas
        Series of n values) the filter keeps."""
        values = {name: _column(table[name], self.columns[name]) for name in self.used}
        out = _evaluate(self.tree, values)
        return np.broadcast_to(np.asarray(out, dtype=bool), (n,)).copy()


def _column(data, kind):
    """A column as numpy: text as an object array of str; integers as int64, or as Python ints (object) where
    a uint64 value does not fit int64."""
    arr = np.asarray(data.to_numpy() if hasattr(data, "to_numpy") else data)
    if kind != INT:
        return np.array([str(x) for x in arr], dtype=object)
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > INT64[1]:
        return arr.astype(object)
    return arr.astype(np.int64)


def _bounds(x):
    if isinstance(x, np.ndarray):
        if not x.size:
            return 0, 0
        return int(x.min()), int(x.max())
    return int(x), int(x)


def _exact(x):
    """`x` as values that cannot overflow: Python ints (an object array)."""
    return x.astype(object) if isinstance(x, np.ndarray) and x.dtype != object else x


def _fits(lo, hi):
    return INT64[0] <= lo and hi <= INT64[1]


def _arith(op, a, b):
    (alo, ahi), (blo, bhi) = _bounds(a), _bounds(b)
    if op == "+":
        lo, hi = alo + blo, ahi + bhi
    elif op == "-":
        lo, hi = alo - bhi, ahi - blo
    else:
        corners = [alo * blo, alo * bhi, ahi * blo, ahi * bhi]
        lo, hi = min(corners), max(corners)
    arrays = isinstance(a, np.ndarray) or isinstance(b, np.ndarray)
    if arrays and not (_fits(alo, ahi) and _fits(blo, bhi) and _fits(lo, hi)):
        a, b = _exact(a), _exact(b)
    elif arrays:
        a = a if isinstance(a, np.ndarray) else np.int64(a)
        b = b if isinstance(b, np.ndarray) else np.int64(b)
    return a + b if op == "+" else a - b if op == "-" else a * b


def _compare(op, a, b):
    if isinstance(a, np.ndarray) and isinstance(b, int) and not _fits(b, b) \
            or isinstance(b, np.ndarray) and isinstance(a, int) and not _fits(a, a):
        a, b = _exact(a), _exact(b)     # a literal beyond int64 against an int64 column: exactly
    elif isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and (a.dtype == object) != (b.dtype == object):
        a, b = _exact(a), _exact(b)
    out = {"==": lambda: a == b, "!=": lambda: a != b, "<": lambda: a < b, "<=": lambda: a <= b,
           ">": lambda: a > b, ">=": lambda: a >= b}[op]()
    return np.asarray(out).astype(bool) if isinstance(out, np.ndarray) else bool(out)


def _evaluate(tree, values):
    """The value of `tree` over the column arrays `values`: computed after its parts, in an explicit stack
    rather than by recursion, so that no tree is too deep to evaluate."""
    stack, done = [(tree, False)], []
    while stack:
        node, ready = stack.pop()
        if node.parts and not ready:
            stack.append((node, True))
            stack.extend((p, False) for p in reversed(node.parts))
            continue
        n = len(node.parts)
        parts = done[len(done) - n:] if n else []
        del done[len(done) - n:]
        done.append(_apply(node, parts, values))
    return done[0]


def _apply(node, parts, values):
    """The value of `node` given the values of its parts (in order)."""
    kind = node.kind
    if kind == "number" or kind == "string":
        return node.value
    if kind == "column":
        return values[node.value]
    if kind == "neg":
        return _arith("-", 0, parts[0])
    if kind == "arith":
        out = parts[0]
        for op, p in zip(node.value, parts[1:]):
            out = _arith(op, out, p)
        return out
    if kind == "compare":
        out = True
        for op, a, b in zip(node.value, parts, parts[1:]):
            out = np.logical_and(out, _compare(op, a, b))
        return out
    if kind == "not":
        return np.logical_not(parts[0])
    join = np.logical_and if kind == "and" else np.logical_or
    out = parts[0]
    for p in parts[1:]:
        out = join(out, p)
    return out


def parse(text, columns):
    """The Filter of `text` over `columns` (name -> "number" or "text"); FilterError (one line) otherwise."""
    return Filter(text, columns)


def kinds_of_frame(frame):
    """The columns of a pandas DataFrame as a filter sees them: integers are numbers, the rest text."""
    import pandas as pd
    return {str(c): INT if pd.api.types.is_integer_dtype(frame[c].dtype) else TEXT for c in frame.columns}


def kinds_of_schema(schema):
    """The columns of a pyarrow schema as a filter sees them: integers are numbers, the rest text."""
    import pyarrow as pa
    return {f.name: INT if pa.types.is_integer(f.type) else TEXT for f in schema}
