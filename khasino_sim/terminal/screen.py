"""A seat's screen as text: drawn from its view (seat_view.py) alone, never from the whole state. Styled with
rich on a terminal (red hearts and diamonds, bold headings); `--plain` (or a pipe) prints the same words with
no colour and no box characters, so the cards read the same without colour and through a screen reader."""
import re

from rich.console import Console
from rich.markup import escape

from ..formats import get_format

RED = re.compile(r"\b((?:10|[A2-9JQK])[HD])\b")
TEAM_NAMES = ("AB", "CD")          # K15


def console(plain, file=None):
    """The console the game prints to: plain text on request or when not a terminal."""
    return Console(file=file, no_color=plain, highlight=False, emoji=False, soft_wrap=True,
                   force_terminal=False if plain else None)


def styled(text, plain):
    """Markup for `text`: red hearts and diamonds unless plain; rich's brackets escaped."""
    text = escape(text)
    return text if plain else RED.sub(r"[red]\1[/red]", text)


def cards(cs):
    return " ".join(cs) if cs else "-"


def seat_name(view, s, names):
    """How seat s is called on seat view['seat']'s screen: "you", or "seat 1 (greedy)", with its team."""
    if s == view["seat"]:
        return "you"
    team = ""
    if view.get("teams") and get_format(view["format"]).seats == 4 and view["format"].startswith("khasino"):
        team = ", partner" if s in next(t for t in view["teams"] if view["seat"] in t) else ", opponent"
    return f"seat {s} ({names[s]}{team})"


def header(view, names):
    fmt = get_format(view["format"])
    parts = [fmt.name]
    if "round" in view:
        parts.append(f"round {view['round']}" + (f" of {view['rounds']}" if view.get("rounds") else "")
                     + f", dealt by seat {view['dealer']}")
        parts.append("match totals " + ", ".join(f"seat {s} {x}" for s, x in enumerate(view["scores"])))
    parts.append(f"deal {view['deal']} of {view['deals']}")
    if view["over"]:
        parts.append("over")
    elif view["to_move"] is not None:
        parts.append("your move" if view["to_move"] == view["seat"] else f"seat {view['to_move']} to move")
    last = view["last_capturer"]
    parts.append("last capture: " + ("none" if last is None else "you" if last == view["seat"] else f"seat {last}"))
    return " · ".join(parts)


def draw(view, names):
    """The lines of `view`'s screen (markup-free text; `styled` colours it)."""
    lines = [header(view, names)]
    practice = view["mode"] == "practice"
    for o in view["seats"]:
        if o["seat"] == view["seat"]:
            continue
        bits = [f"{o['hand_size']} card(s) in hand"]
        if o["pile_size"] is not None:
            bits.append(f"pile {o['pile_size']} card(s)")
        if o["pile_top"]:
            bits.append(f"pile top {o['pile_top']}")
        lines.append(f"  {seat_name(view, o['seat'], names)}: " + ", ".join(bits))
    lines.append(f"  table loose: {cards(view['loose'])}")
    for b in view["builds"]:
        owner = "yours" if b["owner"] == view["seat"] else f"seat {b['owner']}'s"
        mark = ", promised" if b["promised"] else ""
        if practice:
            kind = "simple" if len(b["groups"]) == 1 else "compound"
            what = " ".join("[" + " ".join(g) + "]" for g in b["groups"])
            lines.append(f"  build {b['value']} ({owner}{mark}, {kind}, {b['size']} cards): {what}")
        else:
            lines.append(f"  build {b['value']} ({owner}{mark}): top {b['exposed']}")
    if view.get("set_aside"):
        lines.append(f"  set aside: {cards(view['set_aside'])}")
    if view.get("tabbe") and any(p or m for p, m in view["tabbe"]):
        lines.append("  tabbe so far: " + ", ".join(f"seat {s} {p + m:+d}" for s, (p, m) in enumerate(view["tabbe"])))
    if view.get("sweeps") and any(view["sweeps"]):
        lines.append("  sweeps so far: " + ", ".join(f"seat {s} {x}" for s, x in enumerate(view["sweeps"])))
    if view.get("promises") and any(view["promises"]):
        lines.append("  open promises (P13): " + ", ".join(f"seat {s}: {', '.join(map(str, p))}"
                                                            for s, p in enumerate(view["promises"]) if p))
    mine = next(o for o in view["seats"] if o["seat"] == view["seat"])
    own = f", your pile {mine['pile_size']} card(s)" if practice else ""
    lines.append(f"  stock: {view['stock_size']} card(s){own}")
    lines.append(f"  your hand: {cards(view['hand'])}")
    return lines


def move_line(i, move, practice):
    """`i  text` for the numbered list; in Practice with what a capture takes (cards, points)."""
    extra = ""
    if practice and move.features is not None and move.kind == "capture":
        if move.captured is not None:           # Kasino (misère): its points count against the taker
            extra = f"   [{len(move.captured) + 1} cards, {move.features[0]} point(s)" + \
                    (f", tabbe {move.tabbe:+d}" if move.tabbe else "") + "]"
        else:
            extra = f"   [{move.cards} cards, {move.points} point(s), {move.spades} spade(s)]"
    return f"  {i:>3}  {move.text}{extra}"


def as_seen_by(text, mover, viewer, seats):
    """A move's sentence (written for its mover: "your build", "the opponent's") as the viewer reads it."""
    if mover == viewer:
        return text
    if seats == 2:
        text = text.replace("the opponent's", "\0you\0")
    text = text.replace(f"seat {viewer}'s", "\0you\0")
    text = re.sub(r"\byour partner\b", "their partner", text)
    text = re.sub(r"\byour\b", "their own", text)
    text = re.sub(r"\bnow yours\b", f"now seat {mover}'s", text)
    text = text.replace("\0you\0 build", "your build").replace("\0you\0 pile", "your pile").replace("\0you\0", "your")
    return text
