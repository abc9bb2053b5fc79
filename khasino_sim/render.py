"""A position as terminal text (`khasino show`, `khasino play`): the header (format, deal, match totals, who
moves), each seat's hand and pile, the table's loose cards and builds, the stock and, when the game is over,
the scores. Presentation only: it reads a canonical JSON state (docs/ENGINE.md) and changes nothing."""
from .formats import get_format


def _cards(cards):
    """Cards as space-separated text, "-" for none."""
    return " ".join(cards) if cards else "-"


def _changed_options(fmt, options):
    """" (name, name=value, ...)" for the state's options that differ from its format's own; "" if none."""
    from .state_json import options_json
    own = options_json(fmt)
    changed = [k if v is True else f"{k}={str(v).lower()}" for k, v in sorted(options.items()) if own.get(k) != v]
    return f" ({', '.join(changed)})" if changed else ""


def render(state):
    """The position as terminal text."""
    fmt = get_format(state["format"])
    lines = []
    name = fmt.name + _changed_options(fmt, state.get("options", {}))
    head = f"{name} · deal {state['deal']} of {fmt.deals}"
    if "tabbe" in state:        # Kasino (N1-N7)
        tabbe = [p + m for p, m in state["tabbe"]]
        head = (f"{name} · round {state['round']} of {state['rounds']}, dealt by seat {state['dealer']} · match "
                f"totals {state['scores']}" + (f" · tabbe {tabbe}" if any(p or m for p, m in state["tabbe"]) else "")
                + f" · deal {state['deal']} of {fmt.deals}")
    elif "round" in state:      # Cassino (C7, P20)
        head = (f"{name} · round {state['round']}, dealt by seat "
                f"{state['dealer']} · match totals {state['scores']}"
                + (f" · sweeps {state['sweeps']}" if any(state["sweeps"]) else "")
                + f" · deal {state['deal']} of {fmt.deals}")
    if state.get("to_move") is None:
        head += " · round over" if "round" in state else " · game over"
    else:
        head += f" · seat {state['to_move']} to move"
    last = state.get("last_capturer")
    head += f" · last capture: {'none' if last is None else 'seat ' + str(last)}"
    lines.append(head)
    for s, hand in enumerate(state["hands"]):
        pile = state["piles"][s]
        top = f", top {pile[-1]}" if pile and "tabbe" not in state else ""   # a Kasino pile has no order
        marker = ">" if state.get("to_move") == s else " "
        lines.append(f"{marker} seat {s}  hand [{_cards(hand)}]  pile {len(pile)} card(s){top}")
    table = state["table"]
    lines.append(f"  table   loose [{_cards(table['loose'])}]")
    for b in table["builds"]:
        kind = "simple" if len(b["groups"]) == 1 else "compound"
        groups = " ".join("[" + " ".join(g) + "]" for g in b["groups"])
        lines.append(f"          build {b['value']:>2} ({kind}, seat {b['owner']}): {groups}")
    if state.get("set_aside"):
        lines.append(f"  aside   [{_cards(state['set_aside'])}]")
    lines.append(f"  stock   {len(state['stock'])} card(s)")
    if state.get("to_move") is None:
        from .engine import scores
        pts = ", ".join(f"seat {s}: {sc['score']}" for s, sc in enumerate(scores(state)))
        lines.append(f"  score   {pts}")
    return "\n".join(lines)
