"""Text that came from a file or an option, made safe to show: on a terminal (no control characters, so no
escape sequence can retitle the window, write the clipboard or move the cursor) and in a Markdown table (no `|`
or line break can break it)."""
import re
import unicodedata

# the ASCII and Latin-1 control characters (ESC, BEL, CR, backspace, ...) and the invisible format characters that reorder or hide
# text (bidirectional overrides and isolates, zero-width characters): none has a place in a name or a move.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def printable(text, limit=None):
    """`text` (anything: it is turned into a string) with every control and invisible format character
    removed; cut to `limit` characters with an ellipsis when longer."""
    s = _CONTROLS.sub("", str(text))
    s = "".join(ch for ch in s if unicodedata.category(ch) != "Cc")
    if limit is not None and len(s) > limit:
        s = s[: max(limit - 1, 0)] + "…"
    return s


_MARKDOWN = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def markdown(text):
    """`text` as literal Markdown (a table cell or running text): printable, its Markdown punctuation
    backslash-escaped, so a `|` cannot open a column and `<`, `[` or `*` cannot make markup."""
    return _MARKDOWN.sub(r"\\\1", printable(text))
