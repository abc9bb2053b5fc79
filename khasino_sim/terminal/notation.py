"""The short move notation of `khasino play` (README, "Playing in the terminal"), read into an Entry, and the
facts of a legal move (its card, kind, build value, the other cards it uses) that an Entry is matched against.

    7             the move numbered 7 in the list shown
    9S            the move that plays 9S, when only one does
    9S t          9S trails (Kasino: crawls)
    9S x 4C+5H    9S captures, taking exactly 4C and 5H (moves taking those and more are listed)
    9S x b9       9S captures the build of 9
    5H b9         5H builds 9, or loads or changes a build to 9; `5H b9 4C` names the cards it uses
    lead 1 / stay / decline     the four-player decisions (P11, P15)

Cards are written as everywhere in the project (`10D`, `AS`, `QH`); case and spaces between groups do not
matter, and `+`, `,` and `|` all separate cards."""
import re
from dataclasses import dataclass

CARD = re.compile(r"\b(10|[A2-9JQK])([SHDC])\b", re.IGNORECASE)
KINDS = {"t": "trail", "trail": "trail", "crawl": "trail", "x": "capture", "capture": "capture",
         "take": "capture"}
DECISIONS = ("lead", "stay", "decline")


class NotationError(ValueError):
    """An entry that is not in the notation: the message says what was expected."""


@dataclass(frozen=True)
class Entry:
    """What a player typed: a move number, or a card with what it does (kind "trail", "capture" or "build" — a
    build, load or change to `value`), the other cards named, and whether a build of `value` is captured
    (`target`); or a decision (kind "lead", "stay", "decline", `value` the seat for a lead)."""
    number: int = None
    card: str = None
    kind: str = None
    value: int = None
    cards: tuple = ()
    target: int = None

    def text(self):
        """The entry written back in the notation."""
        if self.number is not None:
            return str(self.number)
        if self.card is None:
            return self.kind + (f" {self.value}" if self.value is not None else "")
        out = self.card
        if self.kind == "trail":
            return out + " t"
        if self.kind == "capture":
            parts = ([f"b{self.target}"] if self.target else []) + (["+".join(self.cards)] if self.cards else [])
            return out + " x " + " ".join(parts) if parts else out + " x"
        if self.kind == "build":
            return out + f" b{self.value}" + (" " + "+".join(self.cards) if self.cards else "")
        return out


def card_text(token):
    """A card token in the project's spelling (`9s` -> `9S`, `qh` -> `QH`); None if it is not a card."""
    m = CARD.fullmatch(token.strip())
    return None if m is None else m.group(1).upper() + m.group(2).upper()


def parse(text):
    """The Entry for `text`; NotationError (its message a sentence) for text that is not in the notation."""
    words = [w for w in re.split(r"[\s,+|]+", text.strip()) if w]
    if not words:
        raise NotationError("type a move number, a card (e.g. 9S), or ? for help")
    head = words[0].lower()
    if head.isdigit() and len(words) == 1:
        return Entry(number=int(head))
    if head in DECISIONS:
        if head == "lead":
            if len(words) != 2 or not words[1].isdigit():
                raise NotationError("lead takes the seat that leads: lead 0 or lead 1")
            return Entry(kind="lead", value=int(words[1]))
        if len(words) != 1:
            raise NotationError(f"{head} takes nothing after it")
        return Entry(kind=head)
    card = card_text(words[0])
    if card is None:
        raise NotationError(f"{words[0]!r} is not a move number or a card (cards are written like AS, 10D, 7H; "
                            "`help` lists the notation)")
    kind, value, target, cards = None, None, None, []
    for w in words[1:]:
        lw = w.lower()
        if lw in KINDS:
            if kind is not None:
                raise NotationError(f"{w!r}: one of t (trail) and x (capture) per move")
            kind = KINDS[lw]
        elif re.fullmatch(r"b\d{1,2}", lw):
            v = int(lw[1:])
            if kind == "capture" and target is None:
                target = v
            elif kind in (None, "build") and value is None:
                kind, value = "build", v
            else:
                raise NotationError(f"{w!r}: one build value per move (b9 builds 9; x b9 captures the build of 9)")
        elif card_text(w) is not None:
            cards.append(card_text(w))
        else:
            raise NotationError(f"{w!r} is not a card, t (trail), x (capture) or bN (a build of N)")
    if kind == "trail" and cards:
        raise NotationError("a trail uses no other card: write just the card and t")
    return Entry(card=card, kind=kind, value=value, cards=tuple(cards), target=target)


def _main_text(move):
    """A move's sentence without its follow-ups and pile notes."""
    return move.text.split("; then add")[0]


def facts(move):
    """(card, kind, value, cards, target) of a legal move: kind "trail", "capture", "build" (build, load,
    change, rebuild) or a decision kind; value the build value a build-kind move makes or adds to; cards the
    other cards it uses or takes (table, pile and follow-up cards, the played card left out); target the value
    of a build it captures (Khasino, Cassino), else None."""
    if move.card is None:
        return None, move.kind, move.seat, (), None
    kind = {"load": "build", "change": "build"}.get(move.kind, move.kind)
    main = _main_text(move)
    value = None
    if kind == "build":
        found = re.findall(r"(?:build|rebuild|raise it to) (\d+)", main)
        value = int(found[-1]) if found else None
    target = None
    if kind == "capture":
        m = re.search(r"build (\d+)", main)
        target = int(m.group(1)) if m else None
    if move.captured is not None:
        others = list(move.captured)
    else:
        named = re.sub(r"\(using [^)]*\)", "", move.text)      # pile cards named twice: in a group and here
        others = [card_text(m.group(0)) for m in CARD.finditer(named)]
        others.remove(move.card) if move.card in others else None
        while move.card in others:          # the played card named again in its own group
            others.remove(move.card)
    return move.card, kind, value, tuple(others), target


def matches(entry, moves):
    """The moves `entry` names: (exact, candidates). A number names one move. A card entry's candidates are the
    moves that play that card, of its kind and value, using every card it names (and capturing the build it
    names); the exact ones use exactly the cards named (or the entry names none and only one candidate is
    left). The caller plays a single exact move, or a single candidate, and otherwise asks."""
    if entry.number is not None:
        ok = [moves[entry.number - 1]] if 1 <= entry.number <= len(moves) else []
        return ok, ok
    if entry.card is None:
        want = [m for m in moves if m.kind == entry.kind and (entry.kind != "lead" or m.seat == entry.value)]
        return want, want
    cands = []
    for m in moves:
        card, kind, value, cards, target = facts(m)
        if card != entry.card or (entry.kind and kind != entry.kind):
            continue
        if entry.value is not None and value != entry.value:
            continue
        if entry.target is not None and target != entry.target:
            continue
        if not _contains(cards, entry.cards):
            continue
        cands.append(m)
    exact = [m for m in cands if sorted(facts(m)[3]) == sorted(entry.cards)] if entry.cards else []
    if not exact and len(cands) == 1 and not entry.cards:
        exact = cands           # named cards must be all the move uses: a subset is asked about, not played
    return exact, cands


def _contains(have, named):
    """Every named card is among `have` (as many times as named: a double deck holds two of each)."""
    pool = list(have)
    for c in named:
        if c not in pool:
            return False
        pool.remove(c)
    return True
